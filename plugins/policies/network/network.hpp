// network: NET_CONNECT_LOOPBACK for the Surfnet port and, when oms passes its
// trusted Surfpool binary, the Surfpool ports plus NET_LISTEN_LOOPBACK for that
// binary alone. Nothing else: every other destination stays denied.
#pragma once
#include <oms/sdk.hpp>

namespace oms::policies {

class Network : public oms::sdk::PolicyPlugin {
public:
    static constexpr const char* id = "network";
    static constexpr const char* version = OMS_VERSION;
    static constexpr const char* summary =
        "allows loopback connections to the Surfnet port (and Surfpool's ports, where only the trusted "
        "Surfpool binary may listen)";
    static const oms_config_key* config_keys();
    static size_t config_key_count();

    explicit Network(oms::sdk::Host host) : PolicyPlugin(host) {}
    void contribute(const oms::sdk::Context& context, const oms::sdk::RuleSink& sink) override;
};

}  // namespace oms::policies
