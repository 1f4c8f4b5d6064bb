// One assembled policy: the rules every policy plugin contributed, in the
// order the plugins were found (plugin folders in search order, files by
// name), and the command's final environment. Backends only render it.
#pragma once
#include "oms/core/registry.hpp"
#include "oms/core/run_context.hpp"

#include <oms/sdk.h>

#include <string>
#include <vector>

namespace oms::core {

struct PolicyRule {
    oms_rule_kind kind;
    std::string value;
    int64_t number = 0;
    std::string origin;
};

class Policy {
public:
    Policy() = default;
    Policy(const Policy&) = delete;
    Policy& operator=(const Policy&) = delete;

    std::vector<PolicyRule> rules;
    std::vector<std::string> env;  // "NAME=value", sorted
    // The ABI view; valid until the policy changes or dies.
    const oms_policy* view();

private:
    std::vector<oms_rule> rule_views_;
    std::vector<const char*> env_views_;
    oms_policy view_{};
};

// Plugins that must be present for any command to run (fail closed: without
// them a secret would not be denied, or the environment not scrubbed).
const std::vector<std::string>& required_policy_plugins();

// Throws UserError when a required policy plugin is missing or any policy
// plugin was rejected: no command may run then.
void check_policy_plugins(const Registry& registry);

// Run every policy plugin; throws UserError when one fails or a required one
// is missing or broken. Never partially succeeds.
void assemble_policy(const Registry& registry, const RunContext& context, Policy& policy);

// "read-deny-tree", ...: the rule kinds as the CLI prints them.
std::string rule_kind_name(oms_rule_kind kind);

// Whether the rule opens a loopback port to connect to (its number): a fixed
// one (NET_CONNECT_LOOPBACK) or one of the run alone (NET_CONNECT_RUN_PORT).
inline bool is_port_rule(const PolicyRule& rule) {
    return rule.kind == OMS_RULE_NET_CONNECT_LOOPBACK || rule.kind == OMS_RULE_NET_CONNECT_RUN_PORT;
}

// A rule whose value is its number, a port: a connect port, or one the run publishes.
inline bool is_numbered_rule(const PolicyRule& rule) {
    return is_port_rule(rule) || rule.kind == OMS_RULE_NET_PUBLISH_LOOPBACK;
}

}  // namespace oms::core
