// Ports on the host's 127.0.0.1 for network tests.
#pragma once
#include <string>
#include <cstdint>

namespace oms::test {

// A port for a program of the test to listen on: free when picked, then
// released. Picked below the kernel's ephemeral range
// (net.ipv4.ip_local_port_range), where the kernel never hands a port to a
// client socket or a bind to port 0 on its own, so only another test picking
// the same way can take it before the program binds it (a port the kernel
// picked was often the local port of some client a moment later).
uint16_t unused_loopback_port();

// A port where nothing listens for as long as this object lives: a socket
// bound to it, never listening. A connect to it is refused (the kernel
// answers with a reset, as for a closed port) and no other socket can bind
// it (no SO_REUSEADDR), so "nothing listens there" stays true for the whole
// test. Private network namespaces (a sandbox's loopback, a container's)
// can still listen on the same number: the reservation is the host's only.
class ClosedLoopbackPort {
public:
    ClosedLoopbackPort();
    ~ClosedLoopbackPort();
    ClosedLoopbackPort(const ClosedLoopbackPort&) = delete;
    ClosedLoopbackPort& operator=(const ClosedLoopbackPort&) = delete;
    uint16_t port() const { return port_; }

private:
    int fd_ = -1;
    uint16_t port_ = 0;
};

// A client of the host's 127.0.0.1:`port`, as a browser or curl is: sends
// `text` (when not empty) and reads until the server closes (2 s at most):
// what it read, "refused" when nothing listens there, "error" when the
// connect failed otherwise; "" when the connection ended with nothing read.
std::string host_loopback_exchange(uint16_t port, const std::string& text);

}  // namespace oms::test
