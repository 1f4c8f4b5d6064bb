// The values of one kind of rule in the assembled policy, in order.
#pragma once
#include <oms/sdk.hpp>

#include <string>
#include <vector>

namespace oms::landlock {

inline std::vector<std::string> values_of(const oms::sdk::Policy& policy, oms_rule_kind kind) {
    std::vector<std::string> out;
    for (const auto& rule : policy.rules(kind)) out.emplace_back(rule.value);
    return out;
}

}  // namespace oms::landlock
