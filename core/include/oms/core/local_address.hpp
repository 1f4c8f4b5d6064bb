// Whether an address leads to this machine itself: the kernel's own answer
// (a route lookup whose route is "local", "broadcast", "anycast" or
// "multicast"), asked when the proxy is about to connect. Address ranges
// alone cannot say it: an interface may carry a public or documentation
// address (a VPN, a cloud host's public address on eth0, an address added
// to lo), and every service bound to 0.0.0.0 or :: answers on it.
#pragma once
#include <sys/socket.h>

namespace oms::core {

enum class Locality {
    elsewhere,  // routed off this machine (or no route at all: the connect fails by itself)
    local,      // this machine: one of its addresses, or a broadcast, anycast or multicast route
    unknown,    // the kernel could not be asked: treated as local (fail closed)
};

Locality address_locality(const sockaddr* address);

}  // namespace oms::core
