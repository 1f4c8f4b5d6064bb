// The run's filtering proxy: the only way out of the sandbox to the hosts of
// [network] allow_hosts. It listens on the host's 127.0.0.1 at a port the
// kernel picks, and the backend relays that one loopback port into the
// sandbox like the Surfnet's (a NET_CONNECT_RUN_PORT rule), so no backend
// needs to know about it. It speaks HTTP CONNECT, plain HTTP and SOCKS5,
// decides each destination by the rules, resolves names itself (the
// command's resolver knows no names) and refuses an address that is
// loopback, private, link-local or the metadata service unless the user
// pinned the name to it. TLS is passed through, never opened. Every refusal
// goes to the run's ViolationLog.
//
// Bounded whatever the command does: one thread runs an epoll loop for every
// connection (plus the resolver's one), at most kMaxConnections at once
// (more wait in the listen backlog), kBufferBytes per direction, and a
// request must be complete within kRequestTimeout.
#pragma once
#include "oms/core/egress_rules.hpp"
#include "oms/core/violation_log.hpp"

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <thread>

namespace oms::core {

class EgressProxy {
public:
    static constexpr size_t kMaxConnections = 128;
    static constexpr size_t kBufferBytes = 32 * 1024;
    static constexpr std::chrono::seconds kRequestTimeout{15};

    // Listens and starts the loop; throws UserError when it cannot.
    EgressProxy(EgressRules rules, ViolationLog& log);
    ~EgressProxy();  // stops the loop and closes every socket
    EgressProxy(const EgressProxy&) = delete;
    EgressProxy& operator=(const EgressProxy&) = delete;

    uint16_t port() const { return port_; }
    size_t open_connections() const { return open_.load(); }

    struct Loop;

private:
    std::unique_ptr<Loop> loop_;
    uint16_t port_ = 0;
    std::atomic<size_t> open_{0};
    std::thread thread_;
};

}  // namespace oms::core
