#include "oms/core/published_ports.hpp"

#include "oms/core/error.hpp"

#include <algorithm>

namespace oms::core {

namespace {

bool is_tcp_port(int64_t port) { return port >= 1 && port <= 65535; }

void add_unique(std::vector<uint16_t>& ports, int64_t port) {
    if (std::find(ports.begin(), ports.end(), port) == ports.end()) ports.push_back(static_cast<uint16_t>(port));
}

}  // namespace

std::vector<uint16_t> published_ports(const Config& config, const std::vector<std::string>& cli_ports) {
    std::vector<uint16_t> ports;
    if (const ConfigValue* value = config.get("network", "publish"))
        for (int64_t port : value->integers) {
            if (!is_tcp_port(port))
                throw UserError(kExitConfig, "config error: " + value->where + ": key 'network.publish': " +
                                                 std::to_string(port) + " is not a TCP port (1..65535)");
            add_unique(ports, port);
        }
    for (const std::string& text : cli_ports) {
        const bool digits = !text.empty() && text.size() <= 5 && text.find_first_not_of("0123456789") == std::string::npos;
        if (!digits || !is_tcp_port(std::stol(text)))
            throw UserError(kExitUsage, "oms: --publish '" + text + "': not a TCP port (1..65535)");
        add_unique(ports, std::stol(text));
    }
    return ports;
}

void add_published_ports(Policy& policy, const std::vector<uint16_t>& ports) {
    for (uint16_t port : ports) {
        for (const PolicyRule& rule : policy.rules)
            if (is_port_rule(rule) && rule.number == port)
                throw UserError(kExitConfig, "refusing to publish port " + std::to_string(port) +
                                                 ": the command already reaches the host's port " +
                                                 std::to_string(port) + " (" + rule.origin +
                                                 "); publish another port. Nothing ran.");
        policy.rules.push_back(PolicyRule{OMS_RULE_NET_PUBLISH_LOOPBACK, "", port, "network: published to the host (--publish, [network] publish)"});
    }
}

}  // namespace oms::core
