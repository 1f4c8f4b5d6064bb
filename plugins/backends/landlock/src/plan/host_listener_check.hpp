// Asks the kernel which TCP ports of the host's 127.0.0.1 have a listener,
// so the relay can refuse connections inside the sandbox (ECONNREFUSED)
// when nothing on the host would take them. It reads the listening sockets
// of oms's own network namespace (the host's) over NETLINK_SOCK_DIAG, as
// `ss -lt` does: no privilege needed, and no connection is ever made to the
// user's service just to look.
#pragma once
#include <oms/scoped_fd.hpp>

#include <cstdint>
#include <optional>
#include <set>
#include <vector>

namespace oms::landlock {

class HostListenerCheck {
public:
    HostListenerCheck();
    // The ports a connect to 127.0.0.1:<port> would reach a listener on
    // (bound to 127.0.0.1, 0.0.0.0, or a dual-stack [::]); nullopt when the
    // kernel could not be asked (no sock_diag): the caller must then assume
    // every port may answer.
    std::optional<std::set<uint16_t>> listening_ports();

private:
    bool dump(int family, std::set<uint16_t>& ports);
    sdk::ScopedFd netlink_;
    uint32_t sequence_ = 0;
};

// For each of `ports`, whether a connect to the host's 127.0.0.1 there
// would find a listener now (true when the kernel cannot be asked).
std::vector<bool> host_ports_listening(const std::vector<uint16_t>& ports);

}  // namespace oms::landlock
