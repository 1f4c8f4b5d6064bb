#include "loopback_port.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>

#include <fstream>
#include <random>
#include <stdexcept>

namespace oms::test {

namespace {

// A TCP socket bound to 127.0.0.1:port (0: the kernel's pick), or -1.
int bound_socket(uint16_t port) {
    const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return -1;
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = htons(port);
    if (bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

uint16_t port_of(int fd) {
    sockaddr_in a{};
    socklen_t size = sizeof a;
    getsockname(fd, reinterpret_cast<sockaddr*>(&a), &size);
    return ntohs(a.sin_port);
}

// The lowest port of the ephemeral range (32768 on Linux by default).
unsigned ephemeral_low() {
    std::ifstream range("/proc/sys/net/ipv4/ip_local_port_range");
    unsigned low = 0, high = 0;
    if (range >> low >> high && low > 12000) return low;
    return 32768;
}

// A socket bound below the ephemeral range, at a random port (tests run in
// parallel and pick the same way), or the kernel's pick when none is free.
int bound_below_ephemeral_range() {
    const unsigned first = 10000, last = ephemeral_low() - 1;
    std::random_device seed;
    std::mt19937 random(seed());
    std::uniform_int_distribution<unsigned> pick(first, last);
    for (int attempt = 0; attempt < 64; ++attempt)
        if (const int fd = bound_socket(static_cast<uint16_t>(pick(random))); fd >= 0) return fd;
    return bound_socket(0);
}

}  // namespace

uint16_t unused_loopback_port() {
    const int fd = bound_below_ephemeral_range();
    if (fd < 0) throw std::runtime_error("no free port on 127.0.0.1");
    const uint16_t port = port_of(fd);
    close(fd);
    return port;
}

ClosedLoopbackPort::ClosedLoopbackPort() : fd_(bound_below_ephemeral_range()) {
    if (fd_ < 0) throw std::runtime_error("no free port on 127.0.0.1 to hold closed");
    port_ = port_of(fd_);
}

ClosedLoopbackPort::~ClosedLoopbackPort() {
    if (fd_ >= 0) close(fd_);
}

std::string host_loopback_exchange(uint16_t port, const std::string& text) {
    const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    timeval timeout{2, 0};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
        const bool refused = errno == ECONNREFUSED;
        close(fd);
        return refused ? "refused" : "error";
    }
    if (!text.empty()) (void)!send(fd, text.data(), text.size(), MSG_NOSIGNAL);
    std::string answer;
    char buffer[256];
    for (ssize_t n; (n = recv(fd, buffer, sizeof buffer, 0)) > 0;) answer.append(buffer, static_cast<size_t>(n));
    close(fd);
    return answer;
}

}  // namespace oms::test
