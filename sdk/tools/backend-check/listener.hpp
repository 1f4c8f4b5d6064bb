// A host-side listener (TCP on 127.0.0.1, or a unix socket) that records
// every connection it accepts and what arrived on it, so a network check
// asserts what reached the host, not what the command claims.
#pragma once
#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

namespace oms::backend_check {

class Listener {
public:
    static std::unique_ptr<Listener> tcp_loopback();  // on a free port
    static std::unique_ptr<Listener> unix_socket(const std::string& path);
    ~Listener();
    Listener(const Listener&) = delete;
    Listener& operator=(const Listener&) = delete;

    int port() const { return port_; }
    int accepted() const { return accepted_; }
    std::string received() const;
    // Waits until TEXT has arrived or TIMEOUT passed; says whether it arrived.
    // A command has ended when the checks ask, but the listener's thread may
    // not have accepted its connection yet on a loaded machine.
    bool wait_for(const std::string& text, std::chrono::milliseconds timeout) const;
    void reset();

private:
    explicit Listener(int fd, int port);
    void serve();
    int fd_;
    int port_;
    std::atomic<int> accepted_{0};
    std::atomic<bool> stop_{false};
    mutable std::mutex mutex_;
    std::string received_;
    std::thread thread_;
};

}  // namespace oms::backend_check
