// A container's refused connects, into the run's refusal log. With network
// "none" the runner watches its commands' connects
// (runner/command_connects.hpp) and tells oms each one refused: off the
// loopback (no route; source "route"), or to a loopback port nothing
// listened on (source "loopback"; runner/loopback_listeners.hpp). A warm
// command's come as frames on its connection, a one-shot command's as lines
// to lookups.sock. Only the address and port are taken from the runner; the
// source and the rule are oms's own, and an address of the other kind (a
// loopback one said to be off the loopback, or the reverse) is dropped.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

namespace oms::docker {

inline constexpr const char* kNoRouteRule =
    "off the container's loopback: with network \"none\" the container has no route to other hosts (names on "
    "[network] allow_hosts go through oms's proxy)";
inline constexpr const char* kNothingListensRule =
    "nothing listens there: the container's loopback reaches the host only on the relayed ports (the Surfnet's, "
    "and oms's proxy for [network] allow_hosts)";

enum class RefusedConnect { no_route, nothing_listens };

// Appends the refusal of `port` at `address` (4 bytes for AF_INET, 16 for
// AF_INET6) to `refusal_fd`; false (nothing written) when the family is
// another or the address is not of `kind`'s side of the loopback.
bool append_connect_refusal(int refusal_fd, RefusedConnect kind, int family, const uint8_t* address, uint16_t port);

// The same from the text of a line's address and port; false when either is
// not one (a name, a port out of range).
bool append_connect_refusal(int refusal_fd, RefusedConnect kind, const std::string& address, const std::string& port);

}  // namespace oms::docker
