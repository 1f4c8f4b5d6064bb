// A tiny HTTP/1.1 server on the host's 127.0.0.1 (a port the kernel picks)
// for network tests: it serves fixed bodies by path, one connection at a
// time, every reply with "Connection: close", and remembers each request
// line and Host header it was sent, so a test sees a request really arrived.
#pragma once
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace oms::test {

class StaticHttpServer {
public:
    // path ("/tiny-pkg") -> body; anything else is a 404.
    explicit StaticHttpServer(std::map<std::string, std::string> files);
    ~StaticHttpServer();
    StaticHttpServer(const StaticHttpServer&) = delete;
    StaticHttpServer& operator=(const StaticHttpServer&) = delete;

    uint16_t port() const { return port_; }
    void add(const std::string& path, const std::string& body);
    // "GET /path host=pkg.test:1234", in arrival order.
    std::vector<std::string> requests() const;

private:
    void serve();
    void answer(int fd);
    mutable std::mutex mutex_;
    std::map<std::string, std::string> files_;
    std::vector<std::string> requests_;
    int listener_ = -1, stop_ = -1;
    uint16_t port_ = 0;
    std::thread thread_;
};

}  // namespace oms::test
