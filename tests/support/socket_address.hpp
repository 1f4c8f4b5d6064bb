// The bytes of an IPv4 or IPv6 socket address (sockaddr_in, sockaddr_in6),
// as a command passes them to connect, and the port a socket is bound to:
// for tests of what reads them.
// Header-only, libc only.
#pragma once
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace oms::test {

inline std::vector<uint8_t> ipv4_address(const char* address, uint16_t port = 80) {
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(port);
    if (inet_pton(AF_INET, address, &a.sin_addr) != 1) throw std::invalid_argument(std::string("not IPv4: ") + address);
    const auto* p = reinterpret_cast<const uint8_t*>(&a);
    return {p, p + sizeof a};
}

inline std::vector<uint8_t> ipv6_address(const char* address, uint16_t port = 80) {
    sockaddr_in6 a{};
    a.sin6_family = AF_INET6;
    a.sin6_port = htons(port);
    if (inet_pton(AF_INET6, address, &a.sin6_addr) != 1) throw std::invalid_argument(std::string("not IPv6: ") + address);
    const auto* p = reinterpret_cast<const uint8_t*>(&a);
    return {p, p + sizeof a};
}

// The port `fd` is bound to (IPv4 or IPv6), or 0.
inline uint16_t bound_port(int fd) {
    sockaddr_storage a{};
    socklen_t size = sizeof a;
    if (getsockname(fd, reinterpret_cast<sockaddr*>(&a), &size) != 0) return 0;
    return a.ss_family == AF_INET ? ntohs(reinterpret_cast<sockaddr_in*>(&a)->sin_port)
                                  : ntohs(reinterpret_cast<sockaddr_in6*>(&a)->sin6_port);
}

}  // namespace oms::test
