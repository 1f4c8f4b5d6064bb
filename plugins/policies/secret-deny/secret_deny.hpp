// secret-deny: READ_DENY_TREE for HOME (reads below it are denied, then
// toolchain-roots reopens what commands need), READ_DENY for the secret
// folders and files that stay closed even inside a reopened root, the keypair
// file suffixes, and the macOS keychain services.
#pragma once
#include <oms/sdk.hpp>

#include <string>
#include <vector>

namespace oms::policies {

class RuleEmitter;

class SecretDeny : public oms::sdk::PolicyPlugin {
public:
    static constexpr const char* id = "secret-deny";
    static constexpr const char* version = OMS_VERSION;
    static constexpr const char* summary =
        "denies reads of HOME, of ~/.ssh, ~/.aws and other secret folders, of keypair files, and the keychain";
    static const oms_config_key* config_keys();
    static size_t config_key_count();

    explicit SecretDeny(oms::sdk::Host host) : PolicyPlugin(host) {}
    void contribute(const oms::sdk::Context& context, const oms::sdk::RuleSink& sink) override;

private:
    // `extra_suffixes`, each checked to be non-empty.
    std::vector<std::string> extra_suffixes() const;
};

}  // namespace oms::policies
