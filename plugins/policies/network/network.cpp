#include "network.hpp"

#include "paths.hpp"
#include "ports.hpp"
#include "rule_emitter.hpp"

#include <oms/path_resolver.hpp>

#include <algorithm>
#include <string>
#include <vector>

namespace oms::policies {
namespace {

const oms_config_key keys[] = {
    {sizeof(oms_config_key), "surfnet_port", OMS_CONFIG_INTEGER, 0,
     "the loopback port commands may connect to: the local Surfnet's (a Solana test network); default 8899"},
    {sizeof(oms_config_key), "surfpool_ports", OMS_CONFIG_INTEGER_ARRAY, 0,
     "loopback ports allowed when oms passes its trusted Surfpool binary; default [8899, 8900, 9900]"},
    // Widens: user config or the defaults only (a worktree's config is
    // refused, as for every key without OMS_CONFIG_NARROWS).
    {sizeof(oms_config_key), "host_ports", OMS_CONFIG_INTEGER_ARRAY, 0,
     "ports of your own services on the host's 127.0.0.1 (a database, a dev server) commands may connect to; "
     "default []"},
    {sizeof(oms_config_key), "deny_ports", OMS_CONFIG_INTEGER_ARRAY, OMS_CONFIG_NARROWS,
     "ports removed from the three lists above; default []"},
};

bool contains(const std::vector<int64_t>& ports, int64_t port) {
    return std::find(ports.begin(), ports.end(), port) != ports.end();
}

// The ports a command may connect to, in order, without repeats or denied ones.
std::vector<int64_t> allowed_ports(const PortSettings& settings, bool with_surfpool) {
    std::vector<int64_t> candidates{settings.surfnet_port};
    if (with_surfpool) candidates.insert(candidates.end(), settings.surfpool_ports.begin(), settings.surfpool_ports.end());
    // Not for the trusted Surfpool binary's run: it may listen on the ports
    // it may connect to, and the user's own services are not its business.
    if (!with_surfpool) candidates.insert(candidates.end(), settings.host_ports.begin(), settings.host_ports.end());
    std::vector<int64_t> allowed;
    for (int64_t port : candidates)
        if (!contains(allowed, port) && !contains(settings.deny_ports, port)) allowed.push_back(port);
    return allowed;
}

// A port named only by host_ports: a service of the user's on the host.
bool host_port_only(const PortSettings& settings, int64_t port) {
    return port != settings.surfnet_port && !contains(settings.surfpool_ports, port) &&
           contains(settings.host_ports, port);
}

const char* port_origin(const PortSettings& settings, int64_t port) {
    if (port == settings.surfnet_port) return "Surfnet port";
    if (host_port_only(settings, port)) return "host port ([plugin.network] host_ports)";
    return "Surfpool port";
}

}  // namespace

const oms_config_key* Network::config_keys() { return keys; }
size_t Network::config_key_count() { return sizeof keys / sizeof keys[0]; }

void Network::contribute(const oms::sdk::Context& context, const oms::sdk::RuleSink& sink) {
    const sdk::PathResolverScope resolving;  // each folder above the roots looked at once
    const PortSettings settings = read_port_settings(host());
    const auto surfpool = context.surfpool();
    const std::vector<int64_t> ports = allowed_ports(settings, surfpool.has_value());
    RuleEmitter emit(sink, id);
    for (int64_t port : ports)
        emit.add(OMS_RULE_NET_CONNECT_LOOPBACK, "", port_origin(settings, port), port);
    // Number 0: the binary may listen on any of the ports above. With every
    // port denied there is nothing to listen on, so no listen rule either.
    if (surfpool && !ports.empty()) {
        const auto resolved = real_path(*surfpool);
        emit.add(OMS_RULE_NET_LISTEN_LOOPBACK, resolved ? std::string_view(*resolved) : *surfpool,
                 "trusted Surfpool binary", 0);
    }
}

}  // namespace oms::policies
