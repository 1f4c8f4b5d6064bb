#include "connect_refusals.hpp"

#include "../runner/runner_protocol.hpp"

#include <oms/connect_watch.hpp>
#include <oms/refusal_log.hpp>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <cstring>

namespace oms::docker {

namespace {

// The address as the kernel's sockaddr, for the SDK's judgement of it.
bool off_loopback(int family, const uint8_t* address) {
    if (family == AF_INET) {
        sockaddr_in a{};
        a.sin_family = AF_INET;
        std::memcpy(&a.sin_addr, address, 4);
        return connect_watch::off_loopback(reinterpret_cast<const uint8_t*>(&a), sizeof a);
    }
    sockaddr_in6 a{};
    a.sin6_family = AF_INET6;
    std::memcpy(&a.sin6_addr, address, 16);
    return connect_watch::off_loopback(reinterpret_cast<const uint8_t*>(&a), sizeof a);
}

}  // namespace

bool append_connect_refusal(int refusal_fd, RefusedConnect kind, int family, const uint8_t* address, uint16_t port) {
    if (family != AF_INET && family != AF_INET6) return false;
    const bool no_route = kind == RefusedConnect::no_route;
    if (off_loopback(family, address) != no_route) return false;
    char text[INET6_ADDRSTRLEN] = {0};
    if (!inet_ntop(family, address, text, sizeof text)) return false;
    return refusal_log::append(refusal_fd, no_route ? runner::kRouteSource : runner::kLoopbackSource, text,
                               static_cast<size_t>(-1), port, no_route ? kNoRouteRule : kNothingListensRule);
}

bool append_connect_refusal(int refusal_fd, RefusedConnect kind, const std::string& address, const std::string& port) {
    if (port.empty() || port.size() > 5 || port.find_first_not_of("0123456789") != std::string::npos) return false;
    const unsigned long number = std::stoul(port);
    if (number > 65535) return false;
    uint8_t bytes[16] = {0};
    if (inet_pton(AF_INET, address.c_str(), bytes) == 1)
        return append_connect_refusal(refusal_fd, kind, AF_INET, bytes, static_cast<uint16_t>(number));
    if (inet_pton(AF_INET6, address.c_str(), bytes) == 1)
        return append_connect_refusal(refusal_fd, kind, AF_INET6, bytes, static_cast<uint16_t>(number));
    return false;
}

}  // namespace oms::docker
