// env-allowlist: one ENV_PASS rule per variable name that may reach a command.
// The core builds the command's environment from these names alone (USER and
// LOGNAME, passed by default, get the uid's name from the core, never the
// caller's values).
#pragma once
#include <oms/sdk.hpp>

#include <string>
#include <vector>

namespace oms::policies {

class EnvAllowlist : public oms::sdk::PolicyPlugin {
public:
    static constexpr const char* id = "env-allowlist";
    static constexpr const char* version = OMS_VERSION;
    static constexpr const char* summary =
        "passes only the spec's environment variables (plus configured extras) and USER/LOGNAME set from the uid; "
        "credentials never pass";
    static const oms_config_key* config_keys();
    static size_t config_key_count();

    explicit EnvAllowlist(oms::sdk::Host host) : PolicyPlugin(host) {}
    void contribute(const oms::sdk::Context& context, const oms::sdk::RuleSink& sink) override;

private:
    // `extra` minus invalid (error) and credential-like (warning) names.
    std::vector<std::string> accepted_extras() const;
    // `deny`, each checked to be a plain variable name.
    std::vector<std::string> denied_names() const;
};

}  // namespace oms::policies
