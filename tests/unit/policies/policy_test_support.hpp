// Helpers shared by the policy plugins' unit tests: run a plugin class through
// the SDK's C trampolines (the same code path the host uses), load the built
// .so through its exported entry, render rules as comparable text, and build
// fake HOME trees with symlinks and executables.
#pragma once
#include "plugin_harness.hpp"
#include "temp_dir.hpp"

#include <oms/sdk.h>
#include <oms/sdk.hpp>

#include <string>
#include <vector>

namespace oms::test {

// What one contribute call produced.
struct Outcome {
    oms_status status = OMS_OK;
    std::string error;               // the plugin's message when status != OMS_OK
    std::vector<std::string> rules;  // describe() of each rule, in order
    std::vector<OwnedRule> raw;      // the rules themselves
};

// "KIND value #number | origin", e.g. "READ_ALLOW_TREE /t/home/.cargo #0 | toolchain-roots: ~/.cargo".
std::string describe(const OwnedRule& rule);
std::string rule(oms_rule_kind kind, const std::string& value, const std::string& origin, int64_t number = 0);

// Runs contribute on a fresh instance of `P` through its C trampolines.
template <class P>
Outcome run_policy(FakeHost& host, ContextBuilder& context) {
    using Api = oms::sdk::detail::PolicyTrampolines<P>;
    Outcome outcome;
    ErrorBuffer error;
    void* instance = nullptr;
    outcome.status = Api::create(host.api(), &instance, error.get());
    if (outcome.status != OMS_OK) {
        outcome.error = error.message();
        return outcome;
    }
    RuleCollector collector;
    outcome.status = Api::contribute(instance, context.build(), collector.sink(), error.get());
    Api::destroy(instance);
    outcome.error = error.message();
    outcome.raw = collector.rules;
    for (const OwnedRule& r : collector.rules) outcome.rules.push_back(describe(r));
    return outcome;
}

// A built plugin library opened with dlopen, as the host would.
class LoadedPlugin {
public:
    explicit LoadedPlugin(const std::string& file);
    ~LoadedPlugin();
    LoadedPlugin(const LoadedPlugin&) = delete;
    LoadedPlugin& operator=(const LoadedPlugin&) = delete;
    const oms_plugin_descriptor& descriptor() const { return *descriptor_; }
    // create + contribute + destroy through the descriptor's function pointers.
    Outcome contribute(FakeHost& host, ContextBuilder& context) const;
    // Names of the declared config keys, each with "(narrows)" when flagged.
    std::vector<std::string> key_summary() const;

private:
    void* handle_ = nullptr;
    const oms_plugin_descriptor* descriptor_ = nullptr;
};

// Filesystem helpers for fake HOMEs.
void make_symlink(const std::string& target, const std::string& link);  // creates link's parents
void make_executable(const std::string& path, const std::string& content = "#!/bin/sh\nexit 0\n");

}  // namespace oms::test
