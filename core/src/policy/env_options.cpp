#include "oms/core/env_options.hpp"

#include "oms/core/environment.hpp"
#include "oms/core/error.hpp"
#include "oms/core/variable_relevance.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

namespace oms::core {

namespace {

bool is_variable_name(const std::string& name) {
    if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0]))) return false;
    return std::all_of(name.begin(), name.end(),
                       [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}

std::map<std::string, std::string> as_map(const std::vector<std::string>& entries) {
    std::map<std::string, std::string> out;
    for (const std::string& entry : entries) {
        const size_t eq = entry.find('=');
        if (eq != std::string::npos) out.emplace(entry.substr(0, eq), entry.substr(eq + 1));
    }
    return out;
}

[[noreturn]] void refuse(const std::string& option, const std::string& why) {
    throw UserError(kExitUsage, "oms: --env " + option + ": " + why + ". Nothing ran.");
}

struct EnvOption {
    std::string name, value;
};

EnvOption checked_option(const std::string& option, const std::map<std::string, std::string>& parent) {
    const size_t eq = option.find('=');
    EnvOption out{option.substr(0, eq), ""};
    // Only the name is shown back: a value may be a secret the user typed.
    const std::string shown = eq == std::string::npos ? option : out.name + "=...";
    if (!is_variable_name(out.name)) refuse(shown, "'" + out.name + "' is not a variable name");
    if (never_passes(out.name))
        refuse(shown, "looks like a credential; API keys, tokens, passwords and AWS_* never reach commands");
    for (const char* own : {"HOME", "TMPDIR", "USER", "LOGNAME"})
        if (out.name == own) refuse(shown, "oms sets " + out.name + " itself for every run");
    if (eq != std::string::npos) {
        out.value = option.substr(eq + 1);
        return out;
    }
    const auto it = parent.find(out.name);
    if (it == parent.end()) refuse(shown, "not set in your environment; give its value: --env " + out.name + "=VALUE");
    out.value = it->second;
    return out;
}

bool bookkeeping(const std::string& name) {
    for (const char* shell : {"PWD", "OLDPWD", "SHLVL", "_", "COLUMNS", "LINES"})
        if (name == shell) return true;
    return name.rfind("OMS_", 0) == 0;
}

}  // namespace

void apply_env_options(const std::vector<std::string>& options, const std::vector<std::string>& parent_env,
                       Policy& policy) {
    if (options.empty()) return;
    const auto parent = as_map(parent_env);
    std::vector<EnvOption> checked;
    for (const std::string& option : options) checked.push_back(checked_option(option, parent));
    auto env = as_map(policy.env);
    for (const EnvOption& option : checked) {
        policy.rules.push_back(PolicyRule{OMS_RULE_ENV_PASS, option.name, 0, "--env (command line)"});
        env[option.name] = option.value;
    }
    policy.env.clear();
    for (const auto& [name, value] : env) policy.env.push_back(name + "=" + value);
}

DroppedVariables dropped_variables(const std::vector<std::string>& parent_env, const std::vector<std::string>& env) {
    const auto passed = as_map(env);
    DroppedVariables out;
    for (const auto& [name, value] : as_map(parent_env)) {
        if (passed.count(name) || bookkeeping(name)) continue;
        if (never_passes(name))
            ++out.credentials;
        else
            out.names.push_back(name);
    }
    order_by_relevance(out.names);
    return out;
}

std::string describe_dropped(const DroppedVariables& dropped, size_t most_names) {
    std::string text;
    for (size_t i = 0; i < dropped.names.size() && i < most_names; ++i) text += (i ? ", " : "") + dropped.names[i];
    if (dropped.names.size() > most_names) text += " and " + std::to_string(dropped.names.size() - most_names) + " more";
    if (dropped.credentials > 0)
        text += std::string(text.empty() ? "" : " ") + "(and " + std::to_string(dropped.credentials) +
                (dropped.credentials == 1 ? " credential-like variable, which never passes)"
                                          : " credential-like variables, which never pass)");
    return text;
}

}  // namespace oms::core
