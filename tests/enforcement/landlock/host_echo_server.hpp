// A TCP echo service on the HOST for the relay tests, on one thread. It
// first only reserves a free port of 0.0.0.0 (bound, not listening: a
// connect to it is refused); start() makes it listen and serve, stop()
// stops listening again. Every connection is held until the client ends
// it, echoing what it sends; the most connections open at once is recorded.
#pragma once
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <thread>

namespace oms::test {

class HostEchoServer {
public:
    HostEchoServer();
    ~HostEchoServer();
    HostEchoServer(const HostEchoServer&) = delete;
    HostEchoServer& operator=(const HostEchoServer&) = delete;
    uint16_t port() const { return port_; }
    void start();
    void stop();
    size_t accepted() const { return accepted_; }
    size_t most_open() const { return most_open_; }

private:
    void serve();
    void accept_all();
    void pump(int fd);
    void drop(int fd);
    int listener_ = -1;
    uint16_t port_ = 0;
    int epoll_ = -1;
    int wake_ = -1;  // eventfd: stop the thread
    std::map<int, std::string> pending_;  // per connection: bytes not yet echoed
    std::atomic<size_t> accepted_{0}, most_open_{0};
    std::thread thread_;
};

}  // namespace oms::test
