#include "oms/core/egress_run.hpp"

#include <algorithm>

namespace oms::core {

std::unique_ptr<EgressProxy> start_egress_proxy(const EgressRules& rules, ViolationLog& log) {
    if (rules.empty()) return nullptr;
    return std::make_unique<EgressProxy>(rules, log);
}

std::vector<std::string> proxy_environment(uint16_t port) {
    const std::string http = "http://127.0.0.1:" + std::to_string(port);
    // socks5h: the proxy resolves the name, as it must (the sandbox cannot).
    const std::string socks = "socks5h://127.0.0.1:" + std::to_string(port);
    const std::string direct = "localhost,127.0.0.1,::1";  // the Surfnet is reached without the proxy
    return {"ALL_PROXY=" + socks,
            "CARGO_HTTP_PROXY=" + http,  // cargo reads its own variable first
            "HTTPS_PROXY=" + http,
            "HTTP_PROXY=" + http,
            "NO_PROXY=" + direct,
            "all_proxy=" + socks,
            "https_proxy=" + http,
            "http_proxy=" + http,  // curl, and git through it, read only the lower-case name for http
            "no_proxy=" + direct,
            "npm_config_https_proxy=" + http,  // npm's own settings win over the variables above
            "npm_config_noproxy=" + direct,
            "npm_config_proxy=" + http};
}

void route_through_proxy(Policy& policy, uint16_t port) {
    // The port is this run's alone (the proxy lives and dies with the run):
    // a backend that shares a sandbox among runs opens it for this command only.
    policy.rules.push_back(PolicyRule{OMS_RULE_NET_CONNECT_RUN_PORT, "", port,
                                      "network: oms's egress proxy for [network] allow_hosts"});
    const std::vector<std::string> ours = proxy_environment(port);
    auto name_of = [](const std::string& entry) { return entry.substr(0, entry.find('=')); };
    std::vector<std::string> env;
    for (const std::string& entry : policy.env) {
        const bool replaced = std::any_of(ours.begin(), ours.end(), [&](const std::string& o) {
            return name_of(o) == name_of(entry);
        });
        if (!replaced) env.push_back(entry);
    }
    env.insert(env.end(), ours.begin(), ours.end());
    std::sort(env.begin(), env.end());
    policy.env = std::move(env);
}

std::vector<std::string> egress_lines(const EgressRules& rules) {
    if (rules.empty())
        return {"no host beyond the allowed local ports: [network] allow_hosts is empty (no proxy runs)"};
    std::vector<std::string> lines;
    for (const HostPattern& p : rules.allow)
        lines.push_back("allowed through oms's proxy: " + p.text + (p.port ? "" : " (any port)") + "  (" + p.where + ")");
    for (const HostPattern& p : rules.deny) lines.push_back("denied: " + p.text + "  (" + p.where + ")");
    for (const auto& [name, address] : rules.pinned) lines.push_back("pinned: " + name + " = " + address);
    lines.push_back("names are resolved by the proxy; one that resolves to a loopback, private, link-local or "
                    "metadata address is refused unless pinned");
    lines.push_back("not protected: the command can send anything it reads (the worktree, tokens it finds) to an "
                    "allowed host; allow only hosts you would give that data");
    return lines;
}

}  // namespace oms::core
