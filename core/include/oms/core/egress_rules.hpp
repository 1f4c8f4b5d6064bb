// The egress allowlist: which host names a command may reach through the
// run's filtering proxy ([network] allow_hosts, --allow-host), which it may
// never reach ([network] deny_hosts; a worktree's config may add these only),
// and names the user pinned to an address ([network] pinned_addresses), the
// only way a name may lead to a loopback or private address. Empty by
// default: then no proxy runs and the command reaches the local Surfnet only.
#pragma once
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace oms::core {

class Config;
struct KeySpec;

// The keys of [network] other than the pinned_addresses table.
const std::map<std::string, KeySpec>& network_schema();

// "registry.npmjs.org", "*.crates.io" (any name below crates.io, not
// crates.io itself) or either with ":PORT"; no port: any port.
struct HostPattern {
    std::string name;  // lower case; without the "*." of a wildcard
    bool wildcard = false;
    int port = 0;      // 0: any
    std::string text;  // as written
    std::string where; // "file:line", "--allow-host" or "--deny-host"
    bool matches(const std::string& host, int port) const;
};

// Throws UserError naming `where` when `text` is not a pattern.
HostPattern parse_host_pattern(const std::string& text, const std::string& where);

struct EgressDecision {
    bool allowed = false;
    std::string rule;  // "allow_hosts \"*.crates.io\" (file:line)", "deny_hosts ...", "not in allow_hosts"
    bool any_port = false;  // allowed by a pattern without a port
};

struct EgressRules {
    std::vector<HostPattern> allow, deny;
    std::map<std::string, std::string> pinned;  // lower-case name -> numeric address

    bool empty() const { return allow.empty(); }
    // Deny first, then allow; a name no pattern names is refused. A name
    // pinned to an address that is not public (loopback, private, ...) is
    // allowed only by a pattern that names the port: "pkg.test" alone,
    // pinned to 127.0.0.1, would open every service on the host's loopback.
    EgressDecision decide(const std::string& host, int port) const;
    // The pinned address of `host`, if the user pinned it.
    std::optional<std::string> pinned_address(const std::string& host) const;
};

// [network] from the config, plus the run's --allow-host patterns. Throws
// UserError (file:line:key) on a malformed pattern or pinned address.
EgressRules egress_rules(const Config& config, const std::vector<std::string>& cli_allow_hosts);

// A host name in the form the rules compare: lower case, no trailing dot.
std::string normal_host(const std::string& host);

}  // namespace oms::core
