// A container's connects off its loopback, into the run's refusal log. With
// network "none" the runner watches its commands' connects
// (runner/command_connects.hpp) and tells oms each destination off the
// loopback: a warm command's as a route frame, a one-shot command's as a
// route line to lookups.sock. Only the address and port are taken from the
// runner; the source and the rule are oms's own, and a destination on the
// loopback (nothing the kernel refused for want of a route) is dropped.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

namespace oms::docker {

inline constexpr const char* kNoRouteRule =
    "off the container's loopback: with network \"none\" the container has no route to other hosts (names on "
    "[network] allow_hosts go through oms's proxy)";

// Appends the refusal of `port` at `address` (4 bytes for AF_INET, 16 for
// AF_INET6) to `refusal_fd`; false (nothing written) when the family is
// another or the address is on the loopback.
bool append_route_refusal(int refusal_fd, int family, const uint8_t* address, uint16_t port);

// The same from the text of a route line's address and port; false when
// either is not one (a name, a port out of range).
bool append_route_refusal(int refusal_fd, const std::string& address, const std::string& port);

}  // namespace oms::docker
