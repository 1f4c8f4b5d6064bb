#include "host_echo_server.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <stdexcept>

namespace oms::test {

namespace {
constexpr uint64_t kWake = ~0ull, kListener = ~0ull - 1;
}  // namespace

HostEchoServer::HostEchoServer() : epoll_(epoll_create1(EPOLL_CLOEXEC)), wake_(eventfd(0, EFD_CLOEXEC)) {
    if (epoll_ < 0 || wake_ < 0) throw std::runtime_error("echo server: epoll or eventfd failed");
    epoll_event event{EPOLLIN, {}};
    event.data.u64 = kWake;
    epoll_ctl(epoll_, EPOLL_CTL_ADD, wake_, &event);
    // SO_REUSEADDR: listen() again after stop() needs it while accepted
    // connections still hold the port.
    listener_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    int one = 1;
    setsockopt(listener_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_ANY);
    socklen_t size = sizeof address;
    if (bind(listener_, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
        getsockname(listener_, reinterpret_cast<sockaddr*>(&address), &size) != 0)
        throw std::runtime_error("echo server: cannot bind a free port");
    port_ = ntohs(address.sin_port);
    thread_ = std::thread([this] { serve(); });
}

HostEchoServer::~HostEchoServer() {
    uint64_t one = 1;
    ssize_t ignored = write(wake_, &one, sizeof one);
    (void)ignored;
    thread_.join();
    for (auto& [fd, text] : pending_) close(fd);
    if (listener_ >= 0) close(listener_);
    close(epoll_);
    close(wake_);
}

void HostEchoServer::start() {
    if (listen(listener_, 512) != 0) throw std::runtime_error("echo server: listen failed");
    epoll_event event{EPOLLIN, {}};
    event.data.u64 = kListener;
    epoll_ctl(epoll_, EPOLL_CTL_ADD, listener_, &event);
}

void HostEchoServer::stop() {
    epoll_ctl(epoll_, EPOLL_CTL_DEL, listener_, nullptr);
    shutdown(listener_, SHUT_RD);  // connects are refused from now on
}

void HostEchoServer::serve() {
    epoll_event events[64];
    for (;;) {
        int count = epoll_wait(epoll_, events, 64, -1);
        for (int i = 0; i < count; ++i) {
            if (events[i].data.u64 == kWake) return;
            if (events[i].data.u64 == kListener) accept_all();
            else pump(static_cast<int>(events[i].data.u64));
        }
    }
}

void HostEchoServer::accept_all() {
    for (int fd; (fd = accept4(listener_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC)) >= 0;) {
        ++accepted_;
        pending_[fd];
        if (pending_.size() > most_open_) most_open_ = pending_.size();
        epoll_event event{EPOLLIN, {}};
        event.data.u64 = static_cast<uint64_t>(fd);
        epoll_ctl(epoll_, EPOLL_CTL_ADD, fd, &event);
    }
}

// Level-triggered: reads only while nothing waits to be written back, so a
// client that does not read slows itself down, never the server.
void HostEchoServer::pump(int fd) {
    std::string& pending = pending_[fd];
    if (!pending.empty()) {
        ssize_t n = send(fd, pending.data(), pending.size(), MSG_NOSIGNAL);
        if (n < 0 && errno != EAGAIN) return drop(fd);
        if (n > 0) pending.erase(0, static_cast<size_t>(n));
    } else {
        char buffer[65536];
        ssize_t n = recv(fd, buffer, sizeof buffer, 0);
        if (n == 0) {  // the client's half-close: answer with ours, then forget it
            shutdown(fd, SHUT_WR);
            return drop(fd);
        }
        if (n < 0 && errno != EAGAIN) return drop(fd);
        if (n > 0) pending.assign(buffer, static_cast<size_t>(n));
    }
    epoll_event event{pending.empty() ? static_cast<uint32_t>(EPOLLIN) : static_cast<uint32_t>(EPOLLOUT), {}};
    event.data.u64 = static_cast<uint64_t>(fd);
    epoll_ctl(epoll_, EPOLL_CTL_MOD, fd, &event);
}

void HostEchoServer::drop(int fd) {
    close(fd);
    pending_.erase(fd);
}

}  // namespace oms::test
