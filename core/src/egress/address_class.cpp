#include "oms/core/address_class.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>

#include <cstdint>
#include <cstring>
#include <initializer_list>

namespace oms::core {

namespace {

bool in_v4(uint32_t address, uint32_t network, int bits) {
    const uint32_t mask = bits == 0 ? 0 : ~uint32_t{0} << (32 - bits);
    return (address & mask) == (network & mask);
}

std::string v4_class(uint32_t a) {  // host byte order
    if (a == 0xA9FEA9FE) return "metadata";  // 169.254.169.254
    if (in_v4(a, 0x7F000000, 8)) return "loopback";
    if (in_v4(a, 0x00000000, 8)) return "unspecified";
    if (in_v4(a, 0x0A000000, 8) || in_v4(a, 0xAC100000, 12) || in_v4(a, 0xC0A80000, 16) ||
        in_v4(a, 0x64400000, 10))  // RFC 1918 and carrier-grade NAT
        return "private";
    if (in_v4(a, 0xA9FE0000, 16)) return "link-local";
    if (in_v4(a, 0xE0000000, 4)) return "multicast";
    if (in_v4(a, 0xC0000200, 24) || in_v4(a, 0xC6336400, 24) || in_v4(a, 0xCB007100, 24))
        return "documentation";  // TEST-NET-1, -2 and -3: never routed, so only ever a local address
    if (in_v4(a, 0xF0000000, 4) || in_v4(a, 0xC0000000, 24) || in_v4(a, 0xC6120000, 15) || in_v4(a, 0xC0586300, 24))
        return "reserved";  // 240/4 with broadcast, IETF protocol assignments, benchmarking, the 6to4 relay
    return "public";
}

uint32_t v4_at(const uint8_t* bytes) {
    uint32_t v4;
    std::memcpy(&v4, bytes, 4);
    return ntohl(v4);
}

bool has_prefix(const uint8_t* b, std::initializer_list<uint8_t> prefix) {
    size_t i = 0;
    for (uint8_t byte : prefix)
        if (b[i++] != byte) return false;
    return true;
}

// Forms that carry an IPv4 address inside an IPv6 one, which a gateway or a
// tunnel may lead to: the IPv4 address they carry decides. "" for others.
std::string embedded_v4_class(const in6_addr& a) {
    const uint8_t* b = a.s6_addr;
    if (IN6_IS_ADDR_V4MAPPED(&a) || IN6_IS_ADDR_V4COMPAT(&a)) return v4_class(v4_at(b + 12));
    if (has_prefix(b, {0x00, 0x64, 0xff, 0x9b, 0, 0, 0, 0, 0, 0, 0, 0})) return v4_class(v4_at(b + 12));  // NAT64
    if (has_prefix(b, {0x20, 0x02})) return v4_class(v4_at(b + 2));                                     // 6to4
    if (has_prefix(b, {0x20, 0x01, 0x00, 0x00})) {  // Teredo: the server's address, and the client's inverted
        const std::string server = v4_class(v4_at(b + 4));
        return server != "public" ? server : v4_class(~v4_at(b + 12));
    }
    return "";
}

std::string v6_class(const in6_addr& a) {
    const uint8_t* b = a.s6_addr;
    if (IN6_IS_ADDR_UNSPECIFIED(&a)) return "unspecified";
    if (IN6_IS_ADDR_LOOPBACK(&a)) return "loopback";
    if (const std::string embedded = embedded_v4_class(a); !embedded.empty() && embedded != "public") return embedded;
    if (has_prefix(b, {0x00, 0x64, 0xff, 0x9b, 0x00, 0x01})) return "private";  // 64:ff9b:1::/48, local-use NAT64
    if (has_prefix(b, {0x20, 0x01, 0x0d, 0xb8})) return "documentation";       // 2001:db8::/32
    if (has_prefix(b, {0x01, 0x00, 0, 0, 0, 0, 0, 0})) return "reserved";      // 100::/64, discard-only
    if (has_prefix(b, {0x20, 0x01, 0x00, 0x02, 0x00, 0x00})) return "reserved"; // 2001:2::/48, benchmarking
    if (b[0] == 0xfd && b[1] == 0x00 && b[2] == 0x0e && b[3] == 0xc2 && b[15] == 0x54)
        return "metadata";  // fd00:ec2::254
    if ((b[0] & 0xfe) == 0xfc) return "private";                         // fc00::/7
    if (b[0] == 0xfe && (b[1] & 0xc0) == 0x80) return "link-local";      // fe80::/10
    if (b[0] == 0xfe && (b[1] & 0xc0) == 0xc0) return "private";         // fec0::/10, site-local
    if (b[0] == 0xff) return "multicast";
    return "public";
}

}  // namespace

std::string address_class(const sockaddr* address) {
    if (address->sa_family == AF_INET)
        return v4_class(ntohl(reinterpret_cast<const sockaddr_in*>(address)->sin_addr.s_addr));
    if (address->sa_family == AF_INET6) return v6_class(reinterpret_cast<const sockaddr_in6*>(address)->sin6_addr);
    return "reserved";
}

std::string address_text(const sockaddr* address) {
    char text[INET6_ADDRSTRLEN] = {0};
    if (address->sa_family == AF_INET) {
        inet_ntop(AF_INET, &reinterpret_cast<const sockaddr_in*>(address)->sin_addr, text, sizeof text);
        return text;
    }
    if (address->sa_family == AF_INET6) {
        inet_ntop(AF_INET6, &reinterpret_cast<const sockaddr_in6*>(address)->sin6_addr, text, sizeof text);
        return "[" + std::string(text) + "]";
    }
    return "?";
}

}  // namespace oms::core
