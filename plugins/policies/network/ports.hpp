// The network plugin's port settings, read from `[plugin.network]` and checked.
#pragma once
#include <oms/sdk.hpp>

#include <cstdint>
#include <vector>

namespace oms::policies {

struct PortSettings {
    int64_t surfnet_port = 8899;                         // the local Surfnet JSON-RPC port
    std::vector<int64_t> surfpool_ports{8899, 8900, 9900}; // JSON-RPC, websocket, faucet
    std::vector<int64_t> host_ports;                     // the user's own services on the host's 127.0.0.1
    std::vector<int64_t> deny_ports;                     // removed from all three
};

// Reads the four keys over their defaults. Throws oms::sdk::Error
// (OMS_ERR_INVALID) naming the key when a port is outside 1..65535.
PortSettings read_port_settings(const oms::sdk::Host& host);

}  // namespace oms::policies
