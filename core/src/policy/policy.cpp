#include "oms/core/policy.hpp"

#include "oms/core/account_name.hpp"
#include "oms/core/environment.hpp"
#include "oms/core/env_options.hpp"
#include "oms/core/config_error_location.hpp"
#include "oms/core/error.hpp"
#include "oms/core/own_files.hpp"
#include "oms/core/paths.hpp"
#include "oms/core/policy_guard.hpp"
#include "oms/core/protected_folders.hpp"
#include "oms/core/toolchain_homes.hpp"

#include <oms/abi_history.hpp>
#include <oms/path_resolver.hpp>
#include <oms/sdk.hpp>

#include <cctype>
#include <unistd.h>

namespace oms::core {

namespace {

bool is_path_kind(oms_rule_kind kind) {
    switch (kind) {
        case OMS_RULE_READ_DENY_TREE:
        case OMS_RULE_READ_ALLOW_TREE:
        case OMS_RULE_READ_DENY:
        case OMS_RULE_WRITE_ALLOW_TREE:
        case OMS_RULE_WRITE_DENY:
        case OMS_RULE_WRITE_SCRATCH_TREE:
        case OMS_RULE_NET_LISTEN_LOOPBACK: return true;
        default: return false;
    }
}

// A name, not a path: "" would match everything, "/" or ".." something else.
bool is_plain_name(const std::string& value) {
    return !value.empty() && value != "." && value != ".." && value.find('/') == std::string::npos &&
           value.find('\0') == std::string::npos;
}

struct SinkState {
    std::vector<PolicyRule>* rules;
    std::string plugin_id;
};

oms_status add_rule(void* data, const oms_rule* rule) {
    auto& state = *static_cast<SinkState*>(data);
    if (!rule || rule->struct_size < abi::kRuleSize_1_0) return OMS_ERR_INVALID;  // the frozen size, not ours
    if (rule->kind < OMS_RULE_READ_DENY_TREE || rule->kind > OMS_RULE_KIND_LAST) return OMS_ERR_INVALID;
    std::string value(rule->value.data ? rule->value.data : "", rule->value.size);
    if (is_path_kind(rule->kind) && (value.empty() || value[0] != '/')) return OMS_ERR_INVALID;
    if (rule->kind == OMS_RULE_WRITE_DENY_NAME && !is_plain_name(value)) return OMS_ERR_INVALID;
    const bool port_kind = rule->kind == OMS_RULE_NET_CONNECT_LOOPBACK || rule->kind == OMS_RULE_NET_CONNECT_RUN_PORT ||
                           rule->kind == OMS_RULE_NET_PUBLISH_LOOPBACK;
    if (port_kind && (rule->number < 1 || rule->number > 65535))
        return OMS_ERR_INVALID;
    std::string origin(rule->origin.data ? rule->origin.data : "", rule->origin.size);
    state.rules->push_back(PolicyRule{rule->kind, std::move(value), rule->number,
                                      origin.empty() ? state.plugin_id : origin});
    return OMS_OK;
}

}  // namespace

void check_policy_plugins(const Registry& registry) {
    for (auto& id : required_policy_plugins()) {
        if (registry.find(id) && registry.instance(id)) continue;
        const PluginRecord* broken = registry.find_any(id);
        throw UserError(kExitUnavailable, "refusing to run: the policy plugin '" + id + "' is " +
                                              (broken ? "broken (" + broken->reason + ")" : "missing") +
                                              "; without it the policy would be incomplete");
    }
    for (auto& record : registry.records())
        if (record.status == PluginStatus::Rejected && record.kind == OMS_KIND_POLICY)
            throw UserError(kExitUnavailable, "refusing to run: the policy plugin '" + record.id + "' (" + record.file +
                                                  ") is broken: " + record.reason);
}

const std::vector<std::string>& required_policy_plugins() {
    static const std::vector<std::string> ids{"env-allowlist", "network", "secret-deny", "toolchain-roots",
                                              "write-roots"};
    return ids;
}

void assemble_policy(const Registry& registry, const RunContext& context, Policy& policy) {
    check_policy_plugins(registry);
    std::vector<PolicyRule> rules;
    for (const PluginRecord* record : registry.loaded(OMS_KIND_POLICY)) {
        SinkState state{&rules, record->id};
        oms_policy_sink sink{sizeof(oms_policy_sink), &state, &add_rule};
        char message[1024] = {0};
        oms_error error{message, sizeof message};
        oms_status status = OMS_ERR_INTERNAL;
        try {
            status = record->policy()->contribute(registry.instance(record->id)->handle(), context.view(), &sink, &error);
        } catch (...) {
            std::snprintf(message, sizeof message, "it threw an exception");
        }
        if (status == OMS_OK) continue;
        if (registry.config()) throw_if_config_error(*registry.config(), record->id, message);
        throw UserError(kExitUnavailable, "refusing to run: the policy plugin '" + record->id + "' failed: " +
                                              (message[0] ? message : "no reason given"));
    }
    std::vector<std::string> names;
    for (auto& rule : rules)
        if (rule.kind == OMS_RULE_ENV_PASS) names.push_back(rule.value);
    const RunInputs& in = context.inputs();
    policy.env = command_environment(in.parent_env, names, in.private_home, in.temp_dir,
                                     toolchain_home_defaults(in.home), account_name(::getuid()));
    policy.rules = std::move(rules);
    apply_env_options(in.env_options, in.parent_env, policy);
    const sdk::PathResolverScope resolving;  // the guard and own_files resolve HOME's folders once
    guard_assembled_policy(context, policy);
    deny_writes_to_own_files(own_files(registry.named_folders()), policy);
    hide_state_folder(resolved_path(state_dir()), resolved_path(in.home), policy);
}

const oms_policy* Policy::view() {
    rule_views_.clear();
    for (auto& r : rules)
        rule_views_.push_back(oms_rule{sizeof(oms_rule), r.kind, {r.value.data(), r.value.size()}, r.number,
                                       {r.origin.data(), r.origin.size()}});
    env_views_.clear();
    for (auto& e : env) env_views_.push_back(e.c_str());
    view_ = oms_policy{sizeof(oms_policy), rule_views_.data(), rule_views_.size(),
                       oms_strings{env_views_.data(), env_views_.size()}};
    return &view_;
}

std::string rule_kind_name(oms_rule_kind kind) {
    // "READ_DENY_TREE" -> "read-deny-tree": the SDK's names, in the CLI's style.
    const char* name = oms::sdk::rule_kind_name(kind);
    std::string out = name ? name : "unknown";
    for (char& c : out) c = c == '_' ? '-' : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

}  // namespace oms::core
