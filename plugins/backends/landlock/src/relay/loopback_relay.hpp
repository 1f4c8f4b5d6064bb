// Carries TCP connections from the sandbox's private loopback to the host's.
// The command lives in its own network namespace where only `lo` exists;
// oms listens there on 127.0.0.1:<allowed port> (sockets created by the
// child, which keep their namespace) and connects each accepted connection
// to the same port on the host's 127.0.0.1. Nothing else leaves the sandbox.
//
// Bounded whatever the command does: one thread runs an epoll loop for every
// connection, and at most kMaxConnections are carried at once. While that
// many are open, or while nothing listens on the host's port, the listener
// inside does not listen (the child listens only where the host had a
// listener just before the start; the relay stops with shutdown of the
// listening socket), so a connect in the sandbox is refused (ECONNREFUSED)
// as it would be on the host; it listens again once a slot frees or the
// host's listener appears, which the relay checks every kHostCheckInterval.
//
// Published ports (NET_PUBLISH_LOOPBACK) run the other way on the same loop
// and limit: oms listens on the host's 127.0.0.1:PORT and connects each
// accepted connection to the sandbox's 127.0.0.1:PORT through a socket the
// sandbox's init makes (published_sockets.hpp); where nothing listens in the
// sandbox, the host's client gets a reset.
#pragma once
#include "host_listener_check.hpp"
#include "relay_connection.hpp"
#include <oms/scoped_fd.hpp>

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <thread>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace oms::landlock {

class LoopbackRelay {
public:
    static constexpr size_t kMaxConnections = 256;  // all ports together
    // Of those, the host's clients of published ports: any local user may
    // connect there, and must not take the command's own relay away.
    static constexpr size_t kMaxPublished = 128;
    static constexpr std::chrono::milliseconds kHostCheckInterval{100};

    // Takes ownership of `listeners` (bound; listening where the host had a
    // listener just before the start, see ChildSpec::relay_listen); ports[i]
    // is the port of listeners[i]. The loop asks the host again after
    // kHostCheckInterval.
    LoopbackRelay(std::vector<int> listeners, std::vector<uint16_t> ports);
    // And the published ports: `published[i]` listens on the host's
    // 127.0.0.1:published_ports[i]; `channel` asks the init for sockets.
    // Takes ownership of all of them.
    LoopbackRelay(std::vector<int> listeners, std::vector<uint16_t> ports, std::vector<int> published,
                  std::vector<uint16_t> published_ports, int channel);
    ~LoopbackRelay();  // stops the loop, closes every socket
    LoopbackRelay(const LoopbackRelay&) = delete;
    LoopbackRelay& operator=(const LoopbackRelay&) = delete;

private:
    struct Listener {
        int fd;
        uint16_t port;
        bool listening;              // in the kernel: connects are taken (published: watched)
        bool accept_failed = false;  // out of descriptors or memory: wait for the next check
        bool published = false;      // on the host, into the sandbox: no host check applies
    };
    void run();
    void check_host();
    void update_listeners();
    void accept_from(Listener& listener);
    void open_connection(int inside, uint16_t port);
    void open_published(int accepted, uint16_t port);
    // One connection on the loop (`outside` may still be connecting); its
    // token, or 0 when it could not be watched (then it is reset).
    uint64_t carry(int inside, int outside);
    void serve(uint64_t id);
    bool watch(int fd, uint64_t token, uint32_t events);

    std::vector<Listener> listeners_;
    sdk::ScopedFd epoll_;
    sdk::ScopedFd stop_;  // eventfd
    sdk::ScopedFd channel_;  // to the init, for published ports' sockets
    HostListenerCheck host_check_;
    std::optional<std::set<uint16_t>> host_ports_;  // nullopt: unknown, every port may answer
    bool check_soon_ = false;  // a host connect failed: look again now
    uint64_t next_id_ = 0;
    std::unordered_map<uint64_t, std::unique_ptr<RelayConnection>> connections_;
    std::unordered_set<uint64_t> published_;  // the tokens of published ports' connections
    std::thread loop_;
};

}  // namespace oms::landlock
