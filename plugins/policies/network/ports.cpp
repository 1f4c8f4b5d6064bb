#include "ports.hpp"

#include "config_lists.hpp"

#include <string>

namespace oms::policies {
namespace {

void check_port(const char* key, int64_t port) {
    if (port < 1 || port > 65535)
        config_error("network", key, std::to_string(port) + " is not a TCP port (1..65535)");
}

}  // namespace

PortSettings read_port_settings(const oms::sdk::Host& host) {
    PortSettings settings;
    if (const auto port = host.integer("surfnet_port")) settings.surfnet_port = *port;
    if (auto ports = host.integers("surfpool_ports")) settings.surfpool_ports = std::move(*ports);
    if (auto ports = host.integers("host_ports")) settings.host_ports = std::move(*ports);
    if (auto ports = host.integers("deny_ports")) settings.deny_ports = std::move(*ports);
    check_port("surfnet_port", settings.surfnet_port);
    for (int64_t port : settings.surfpool_ports) check_port("surfpool_ports", port);
    for (int64_t port : settings.host_ports) check_port("host_ports", port);
    for (int64_t port : settings.deny_ports) check_port("deny_ports", port);
    return settings;
}

}  // namespace oms::policies
