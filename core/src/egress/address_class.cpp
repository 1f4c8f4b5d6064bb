#include "oms/core/address_class.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>

#include <cstdint>
#include <cstring>

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
    if (in_v4(a, 0xF0000000, 4) || in_v4(a, 0xC0000000, 24) || in_v4(a, 0xC6120000, 15))
        return "reserved";  // 240/4 with broadcast, IETF protocol assignments, benchmarking
    return "public";
}

std::string v6_class(const in6_addr& a) {
    const uint8_t* b = a.s6_addr;
    if (IN6_IS_ADDR_V4MAPPED(&a) || IN6_IS_ADDR_V4COMPAT(&a)) {
        if (IN6_IS_ADDR_UNSPECIFIED(&a)) return "unspecified";
        if (IN6_IS_ADDR_LOOPBACK(&a)) return "loopback";
        uint32_t v4;
        std::memcpy(&v4, b + 12, 4);
        return v4_class(ntohl(v4));
    }
    // The NAT64 prefix 64:ff9b::/96 carries an IPv4 address too.
    static const uint8_t nat64[12] = {0x00, 0x64, 0xff, 0x9b, 0, 0, 0, 0, 0, 0, 0, 0};
    if (std::memcmp(b, nat64, sizeof nat64) == 0) {
        uint32_t v4;
        std::memcpy(&v4, b + 12, 4);
        return v4_class(ntohl(v4));
    }
    if (IN6_IS_ADDR_LOOPBACK(&a)) return "loopback";
    if (IN6_IS_ADDR_UNSPECIFIED(&a)) return "unspecified";
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
