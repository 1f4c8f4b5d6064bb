#include "env_allowlist.hpp"

#include "config_lists.hpp"
#include "rule_emitter.hpp"
#include "variable_names.hpp"

#include <algorithm>

namespace oms::policies {
namespace {

const oms_config_key keys[] = {
    {sizeof(oms_config_key), "extra", OMS_CONFIG_STRING_ARRAY, 0,
     "more variable names that may reach commands (exact names; credential-like names are refused "
     "with a warning); default []"},
    {sizeof(oms_config_key), "deny", OMS_CONFIG_STRING_ARRAY, OMS_CONFIG_NARROWS,
     "variable names removed from the allowlist, built-in ones included; default []"},
    {sizeof(oms_config_key), "user_names", OMS_CONFIG_BOOLEAN, 0,
     "set USER and LOGNAME to the name of the user oms runs as (from the password database, never the "
     "caller's values); false leaves them unset; user config only; default true"},
};

// Their values are set by the core from the uid, like HOME's: the allowlist
// only decides whether they exist.
const char* const user_name_variables[] = {"USER", "LOGNAME"};

void check_name(const char* key, const std::string& name) {
    if (!is_variable_name(name))
        config_error(EnvAllowlist::id, key, "'" + name + "' is not a variable name (exact names only, no patterns)");
}

bool contains(const std::vector<std::string>& names, std::string_view name) {
    return std::find(names.begin(), names.end(), name) != names.end();
}

}  // namespace

const oms_config_key* EnvAllowlist::config_keys() { return keys; }
size_t EnvAllowlist::config_key_count() { return sizeof keys / sizeof keys[0]; }

std::vector<std::string> EnvAllowlist::accepted_extras() const {
    std::vector<std::string> accepted;
    for (const std::string& name : host().strings("extra")) {
        check_name("extra", name);
        if (never_passes(name)) {
            host().log(OMS_LOG_WARN, "[plugin.env-allowlist] extra: '" + name +
                                         "' looks like a credential and never reaches commands; ignored");
            continue;
        }
        accepted.push_back(name);
    }
    return accepted;
}

std::vector<std::string> EnvAllowlist::denied_names() const {
    std::vector<std::string> denied = host().strings("deny");
    for (const std::string& name : denied) check_name("deny", name);
    return denied;
}

void EnvAllowlist::contribute(const oms::sdk::Context&, const oms::sdk::RuleSink& sink) {
    const std::vector<std::string> extras = accepted_extras();
    const std::vector<std::string> denied = denied_names();
    const bool user_names = host().boolean("user_names").value_or(true);
    RuleEmitter emit(sink, id);
    for (std::string_view name : spec_allowlist())
        if (!contains(denied, name)) emit.add(OMS_RULE_ENV_PASS, name, "spec allowlist");
    if (user_names)
        for (std::string_view name : user_name_variables)
            if (!contains(denied, name)) emit.add(OMS_RULE_ENV_PASS, name, "the uid's user name (set by oms)");
    for (const std::string& name : extras)
        if (!contains(denied, name)) emit.add(OMS_RULE_ENV_PASS, name, "extra (config)");
}

}  // namespace oms::policies
