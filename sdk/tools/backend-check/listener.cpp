#include "listener.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <thread>

namespace oms::backend_check {

std::unique_ptr<Listener> Listener::tcp_loopback() {
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t size = sizeof address;
    if (fd < 0 || bind(fd, reinterpret_cast<sockaddr*>(&address), size) != 0 || listen(fd, 16) != 0 ||
        getsockname(fd, reinterpret_cast<sockaddr*>(&address), &size) != 0)
        throw std::runtime_error(std::string("cannot listen on 127.0.0.1: ") + std::strerror(errno));
    return std::unique_ptr<Listener>(new Listener(fd, ntohs(address.sin_port)));
}

std::unique_ptr<Listener> Listener::unix_socket(const std::string& path) {
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    if (path.size() >= sizeof address.sun_path) throw std::runtime_error("socket path too long: " + path);
    std::memcpy(address.sun_path, path.c_str(), path.size() + 1);
    if (fd < 0 || bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 || listen(fd, 16) != 0)
        throw std::runtime_error("cannot listen on " + path + ": " + std::strerror(errno));
    return std::unique_ptr<Listener>(new Listener(fd, 0));
}

Listener::Listener(int fd, int port) : fd_(fd), port_(port) { thread_ = std::thread([this] { serve(); }); }

Listener::~Listener() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
    if (fd_ >= 0) close(fd_);
}

std::string Listener::received() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return received_;
}

bool Listener::wait_for(const std::string& text, std::chrono::milliseconds timeout) const {
    auto deadline = std::chrono::steady_clock::now() + timeout;
    while (received().find(text) == std::string::npos) {
        if (std::chrono::steady_clock::now() >= deadline) return false;
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return true;
}

void Listener::reset() {
    std::lock_guard<std::mutex> lock(mutex_);
    received_.clear();
    accepted_ = 0;
}

void Listener::serve() {
    while (!stop_) {
        pollfd wanted{fd_, POLLIN, 0};
        if (poll(&wanted, 1, 100) <= 0) continue;
        int client = accept4(fd_, nullptr, nullptr, SOCK_CLOEXEC);
        if (client < 0) continue;
        ++accepted_;
        char buffer[256];
        pollfd data{client, POLLIN, 0};
        if (poll(&data, 1, 2000) > 0) {
            ssize_t n = read(client, buffer, sizeof buffer);
            if (n > 0) {
                std::lock_guard<std::mutex> lock(mutex_);
                received_.append(buffer, static_cast<size_t>(n));
            }
        }
        close(client);
    }
}

}  // namespace oms::backend_check
