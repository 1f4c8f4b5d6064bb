#include "host_listeners.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <stdexcept>

namespace oms::test {

namespace {

int listen_on(int family, uint16_t port) {
    int fd = socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    int rc;
    if (family == AF_INET6) {
        setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof one);
        sockaddr_in6 a{};
        a.sin6_family = AF_INET6;
        a.sin6_port = htons(port);
        a.sin6_addr = in6addr_any;
        rc = bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
    } else {
        sockaddr_in a{};
        a.sin_family = AF_INET;
        a.sin_port = htons(port);
        a.sin_addr.s_addr = htonl(INADDR_ANY);
        rc = bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
    }
    if (rc != 0 || listen(fd, 64) != 0) {
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

}  // namespace

HostListeners::HostListeners() {
    if (pipe2(stop_, O_CLOEXEC) != 0) throw std::runtime_error("pipe");
}

HostListeners::~HostListeners() {
    if (started_) {
        char byte = 's';
        ssize_t ignored = write(stop_[1], &byte, 1);
        (void)ignored;
        thread_.join();
    }
    for (int fd : fds_) close(fd);
    close(stop_[0]);
    close(stop_[1]);
}

bool HostListeners::listen_everywhere(uint16_t port, int patience_seconds) {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(patience_seconds);
    for (;;) {
        int v4 = listen_on(AF_INET, port);
        int v6 = v4 >= 0 ? listen_on(AF_INET6, port) : -1;
        if (v4 >= 0 && v6 >= 0) {
            fds_.push_back(v4);
            fds_.push_back(v6);
            ports_.push_back(port);
            ports_.push_back(port);
            start();
            return true;
        }
        if (v4 >= 0) close(v4);
        if (std::chrono::steady_clock::now() > deadline) return false;
        usleep(200 * 1000);
    }
}

uint16_t HostListeners::listen_any_port() {
    int fd = listen_on(AF_INET, 0);
    if (fd < 0) throw std::runtime_error("cannot listen on a free port");
    fds_.push_back(fd);
    ports_.push_back(port_of(fd));
    start();
    return ports_.back();
}

void HostListeners::start() {
    if (started_) {  // restart so the thread sees the new descriptor
        char byte = 'r';
        ssize_t ignored = write(stop_[1], &byte, 1);
        (void)ignored;
        thread_.join();
        char drain;
        ignored = read(stop_[0], &drain, 1);
    }
    started_ = true;
    thread_ = std::thread([this] { serve(); });
}

void HostListeners::serve() {
    std::vector<pollfd> fds{{stop_[0], POLLIN, 0}};
    for (int fd : fds_) fds.push_back(pollfd{fd, POLLIN, 0});
    for (;;) {
        if (poll(fds.data(), fds.size(), -1) < 0) continue;
        if (fds[0].revents) return;
        for (size_t i = 1; i < fds.size(); ++i) {
            if (!(fds[i].revents & POLLIN)) continue;
            int client = accept4(fds[i].fd, nullptr, nullptr, SOCK_CLOEXEC);
            if (client < 0) continue;
            std::string reply = "hello-" + std::to_string(ports_[i - 1]) + "\n";
            ssize_t ignored = write(client, reply.data(), reply.size());
            (void)ignored;
            close(client);
        }
    }
}

std::string own_ipv4_address() {
    ifaddrs* list = nullptr;
    if (getifaddrs(&list) != 0) return "";
    std::string found;
    for (ifaddrs* i = list; i && found.empty(); i = i->ifa_next) {
        if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET) continue;
        auto* a = reinterpret_cast<sockaddr_in*>(i->ifa_addr);
        if ((ntohl(a->sin_addr.s_addr) >> 24) == 127) continue;
        char text[INET_ADDRSTRLEN];
        inet_ntop(AF_INET, &a->sin_addr, text, sizeof text);
        found = text;
    }
    freeifaddrs(list);
    return found;
}

}  // namespace oms::test
