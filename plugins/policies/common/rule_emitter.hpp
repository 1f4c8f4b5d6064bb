// Adds rules to the host's sink with a "<plugin>: <reason>" origin and drops
// exact repeats, so a path reached two ways (PATH entry and toolchain folder,
// symlink and target) appears once, under the first reason that named it.
#pragma once
#include <oms/sdk.hpp>

#include <set>
#include <string>
#include <string_view>
#include <tuple>

namespace oms::policies {

class RuleEmitter {
public:
    RuleEmitter(const oms::sdk::RuleSink& sink, std::string_view plugin_id);

    // Adds the rule unless the same kind, value and number was added before.
    // Returns true when it was added.
    bool add(oms_rule_kind kind, std::string_view value, std::string_view reason, int64_t number = 0);

    // Adds `path` with its symlinks resolved, only when it exists.
    // Returns true when a rule was added.
    bool add_existing(oms_rule_kind kind, std::string_view path, std::string_view reason);

private:
    const oms::sdk::RuleSink& sink_;
    std::string plugin_id_;
    std::set<std::tuple<oms_rule_kind, std::string, int64_t>> seen_;
};

}  // namespace oms::policies
