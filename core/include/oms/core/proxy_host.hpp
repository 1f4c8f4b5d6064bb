// The one host a proxy request names, validated once: what the allowlist
// matches is exactly what is resolved, connected to and reported. A command
// chooses these bytes, so anything the rules below do not accept is refused
// rather than cleaned up: a NUL or control byte, a percent-escape, user
// information, a space, a numeric form other than a strict dotted quad or
// IPv6 address (getaddrinfo would read "2130706433" or "0x7f.1" as an
// address the allowlist never matched), or a name that breaks the DNS rules.
#pragma once
#include <string>
#include <string_view>

namespace oms::core {

// A host name by the letter-digit-hyphen rule: labels of 1 to 63 letters,
// digits, hyphens (not first or last) and underscores (some real names carry
// them), separated by single dots, 253 characters at most, the last label
// not numeric. Also the rule for the names of allow_hosts, deny_hosts and
// pinned_addresses.
bool is_host_name(std::string_view name);

struct ValidatedHost {
    bool ok = false;
    std::string host;     // lower case, without one trailing dot; an address in its canonical text
    bool numeric = false; // a literal IPv4 or IPv6 address
    std::string why;      // when refused: what is wrong, for the refusal line
};

// `raw`: the host as the request carried it, brackets already removed.
ValidatedHost validate_proxy_host(std::string_view raw);

}  // namespace oms::core
