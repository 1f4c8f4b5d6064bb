// Carries TCP connections from the sandbox's private loopback to the host's.
// The command lives in its own network namespace where only `lo` exists;
// oms listens there on 127.0.0.1:<allowed port> (sockets created by the
// child, which keep their namespace) and connects each accepted connection
// to the same port on the host's 127.0.0.1. Nothing else leaves the sandbox.
#pragma once
#include <cstdint>
#include <list>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace oms::landlock {

class LoopbackRelay {
public:
    // Takes ownership of `listeners`; ports[i] is the port of listeners[i].
    LoopbackRelay(std::vector<int> listeners, std::vector<uint16_t> ports);
    ~LoopbackRelay();  // stops, closes every socket, joins every thread
    LoopbackRelay(const LoopbackRelay&) = delete;
    LoopbackRelay& operator=(const LoopbackRelay&) = delete;

private:
    struct Connection;
    void accept_loop();
    void open_connection(int inside, uint16_t port);
    void reap_finished();

    std::vector<int> listeners_;
    std::vector<uint16_t> ports_;
    int stop_pipe_[2] = {-1, -1};
    std::mutex mutex_;
    std::list<std::unique_ptr<Connection>> connections_;
    std::thread acceptor_;
};

}  // namespace oms::landlock
