// TCP listeners on the HOST the network tests try to reach from inside the
// sandbox: each accepted connection gets "hello-<port>" and is closed.
#pragma once
#include <atomic>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

namespace oms::test {

class HostListeners {
public:
    HostListeners();
    ~HostListeners();
    // Listens on 0.0.0.0:<port> and [::]:<port> (so 127.0.0.2, ::1 and the
    // machine's own address all answer outside the sandbox). Retries while
    // another test holds the port; returns false after `patience_seconds`.
    bool listen_everywhere(uint16_t port, int patience_seconds = 30);
    // Listens on 0.0.0.0 at a free port and returns it.
    uint16_t listen_any_port();

private:
    void serve();
    std::vector<int> fds_;
    std::vector<uint16_t> ports_;
    int stop_[2] = {-1, -1};
    std::thread thread_;
    bool started_ = false;
    void start();
};

// The first non-loopback IPv4 address of this machine, or "" when none.
std::string own_ipv4_address();

}  // namespace oms::test
