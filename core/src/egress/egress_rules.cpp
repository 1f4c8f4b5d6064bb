#include "oms/core/egress_rules.hpp"

#include "oms/core/address_class.hpp"
#include "oms/core/config.hpp"
#include "oms/core/error.hpp"
#include "oms/core/proxy_host.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>

#include <algorithm>
#include <cctype>

namespace oms::core {

namespace {

[[noreturn]] void refuse(const std::string& where, const std::string& what) {
    throw UserError(kExitConfig, "config error: " + where + ": " + what);
}

bool is_numeric_address(const std::string& text) {
    unsigned char buffer[16];
    return inet_pton(AF_INET, text.c_str(), buffer) == 1 || inet_pton(AF_INET6, text.c_str(), buffer) == 1;
}

std::string quoted(const std::string& text) { return "\"" + text + "\""; }

bool is_public_address(const std::string& text) {
    sockaddr_storage s{};
    if (inet_pton(AF_INET, text.c_str(), &reinterpret_cast<sockaddr_in*>(&s)->sin_addr) == 1)
        s.ss_family = AF_INET;
    else if (inet_pton(AF_INET6, text.c_str(), &reinterpret_cast<sockaddr_in6*>(&s)->sin6_addr) == 1)
        s.ss_family = AF_INET6;
    else
        return false;
    return address_class(reinterpret_cast<const sockaddr*>(&s)) == "public";
}

}  // namespace

const Schema& network_schema() {
    static const Schema schema = {
        {"allow_hosts", {OMS_CONFIG_STRING_ARRAY, false,
                         "host names (\"*.domain\" for names below it, \":PORT\" for one port) a command may reach "
                         "through oms's filtering proxy; default [] (no proxy: no network but the allowed local ports)"}},
        {"deny_hosts", {OMS_CONFIG_STRING_ARRAY, true, "host patterns refused even when allow_hosts names them"}},
        {"publish", {OMS_CONFIG_INTEGER_ARRAY, false,
                     "ports of the command's own loopback that the host reaches at 127.0.0.1:PORT while a run lives "
                     "(a dev server); default [] (oms run --publish PORT adds one for a run)"}},
    };
    return schema;
}

std::string normal_host(const std::string& host) {
    std::string out = host;
    if (!out.empty() && out.back() == '.') out.pop_back();
    for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

bool HostPattern::matches(const std::string& host, int wanted_port) const {
    if (port != 0 && port != wanted_port) return false;
    const std::string h = normal_host(host);
    if (!wildcard) return h == name;
    // "*.crates.io" names what is below crates.io: "static.crates.io", never
    // "crates.io" itself nor "evilcrates.io".
    return h.size() > name.size() + 1 && h.compare(h.size() - name.size(), name.size(), name) == 0 &&
           h[h.size() - name.size() - 1] == '.';
}

HostPattern parse_host_pattern(const std::string& text, const std::string& where) {
    HostPattern p;
    p.text = text;
    p.where = where;
    std::string rest = text;
    const auto colon = rest.rfind(':');
    if (colon != std::string::npos) {
        const std::string port = rest.substr(colon + 1);
        if (port.empty() || port.size() > 5 || port.find_first_not_of("0123456789") != std::string::npos ||
            std::stol(port) < 1 || std::stol(port) > 65535)
            refuse(where, quoted(text) + " has no valid port after ':' (1 to 65535)");
        p.port = static_cast<int>(std::stol(port));
        rest = rest.substr(0, colon);
    }
    if (rest.rfind("*.", 0) == 0) {
        p.wildcard = true;
        rest = rest.substr(2);
    }
    p.name = normal_host(rest);
    // A name by the rule requests are held to (proxy_host.hpp), or a numeric
    // address the proxy then still refuses unless its class is public.
    if (!(is_host_name(p.name) || (!p.wildcard && is_numeric_address(p.name))))
        refuse(where, quoted(text) + " is not a host name, \"*.\" and a domain, or either with \":PORT\"");
    if (p.wildcard && p.name.find('.') == std::string::npos)
        refuse(where, quoted(text) + " would allow a whole top-level domain; name a domain below it");
    return p;
}

EgressDecision EgressRules::decide(const std::string& host, int port) const {
    for (const HostPattern& p : deny)
        if (p.matches(host, port)) return {false, "deny_hosts " + quoted(p.text) + " (" + p.where + ")"};
    for (const HostPattern& p : allow) {
        if (!p.matches(host, port)) continue;
        const auto pinned_to = pinned_address(host);
        if (p.port == 0 && pinned_to && !is_public_address(*pinned_to))
            return {false, "pinned to " + *pinned_to + ", not a public address: allow it with its port (" +
                               normal_host(host) + ":" + std::to_string(port) + ")"};
        return {true, "allow_hosts " + quoted(p.text) + " (" + p.where + ")", p.port == 0};
    }
    return {false, "not in allow_hosts"};
}

std::optional<std::string> EgressRules::pinned_address(const std::string& host) const {
    auto found = pinned.find(normal_host(host));
    if (found == pinned.end()) return std::nullopt;
    return found->second;
}

EgressRules egress_rules(const Config& config, const std::vector<std::string>& cli_allow_hosts) {
    EgressRules rules;
    const auto where_of = [&](const char* key) {
        const ConfigValue* value = config.get("network", key);
        return (value ? value->where : std::string("config")) + ": key 'network." + key + "'";
    };
    for (const std::string& text : config.strings("network", "allow_hosts"))
        rules.allow.push_back(parse_host_pattern(text, where_of("allow_hosts")));
    for (const std::string& text : cli_allow_hosts) rules.allow.push_back(parse_host_pattern(text, "--allow-host"));
    for (const std::string& text : config.strings("network", "deny_hosts"))
        rules.deny.push_back(parse_host_pattern(text, where_of("deny_hosts")));
    for (const auto& [name, value] : config.string_map("network", "pinned_addresses")) {
        const std::string where = value.where + ": key 'network.pinned_addresses." + name + "'";
        const std::string host = normal_host(name);
        if (!is_host_name(host) || is_numeric_address(host)) refuse(where, quoted(name) + " is not a host name");
        if (!is_numeric_address(value.text))
            refuse(where, quoted(value.text) + " is not a numeric IPv4 or IPv6 address");
        rules.pinned[host] = value.text;
    }
    return rules;
}

}  // namespace oms::core
