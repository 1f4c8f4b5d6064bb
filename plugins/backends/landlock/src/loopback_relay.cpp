#include "loopback_relay.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <system_error>

namespace oms::landlock {

namespace {

int connect_host_loopback(uint16_t port) {
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return -1;
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(port);
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

// Copies one direction until EOF, then half-closes the other side.
void pump(int from, int to) {
    char buffer[65536];
    for (;;) {
        ssize_t n = read(from, buffer, sizeof buffer);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        for (ssize_t done = 0; done < n;) {
            ssize_t w = write(to, buffer + done, static_cast<size_t>(n - done));
            if (w < 0 && errno == EINTR) continue;
            if (w <= 0) {
                shutdown(from, SHUT_RD);
                shutdown(to, SHUT_WR);
                return;
            }
            done += w;
        }
    }
    shutdown(to, SHUT_WR);
}

}  // namespace

// One relayed connection: a thread per direction, so neither side can stall
// the other.
struct LoopbackRelay::Connection {
    int inside, outside;
    std::atomic<int> running{2};
    std::thread in_to_out, out_to_in;
    Connection(int in, int out) : inside(in), outside(out) {
        in_to_out = std::thread([this] { pump(inside, outside); --running; });
        out_to_in = std::thread([this] { pump(outside, inside); --running; });
    }
    void stop() {
        shutdown(inside, SHUT_RDWR);
        shutdown(outside, SHUT_RDWR);
    }
    ~Connection() {
        in_to_out.join();
        out_to_in.join();
        close(inside);
        close(outside);
    }
};

LoopbackRelay::LoopbackRelay(std::vector<int> listeners, std::vector<uint16_t> ports)
    : listeners_(std::move(listeners)), ports_(std::move(ports)) {
    if (pipe2(stop_pipe_, O_CLOEXEC) != 0) throw std::system_error(errno, std::generic_category(), "relay pipe");
    acceptor_ = std::thread([this] { accept_loop(); });
}

LoopbackRelay::~LoopbackRelay() {
    char byte = 's';
    ssize_t ignored = write(stop_pipe_[1], &byte, 1);
    (void)ignored;
    acceptor_.join();
    {
        std::lock_guard<std::mutex> lock(mutex_);
        for (auto& c : connections_) c->stop();
        connections_.clear();
    }
    for (int fd : listeners_) close(fd);
    close(stop_pipe_[0]);
    close(stop_pipe_[1]);
}

void LoopbackRelay::accept_loop() {
    std::vector<pollfd> fds;
    fds.push_back(pollfd{stop_pipe_[0], POLLIN, 0});
    for (int fd : listeners_) fds.push_back(pollfd{fd, POLLIN, 0});
    for (;;) {
        if (poll(fds.data(), fds.size(), 1000) < 0 && errno != EINTR) return;
        if (fds[0].revents) return;
        for (size_t i = 1; i < fds.size(); ++i) {
            if (!(fds[i].revents & POLLIN)) continue;
            int inside = accept4(fds[i].fd, nullptr, nullptr, SOCK_CLOEXEC);
            if (inside >= 0) open_connection(inside, ports_[i - 1]);
        }
        reap_finished();
    }
}

void LoopbackRelay::open_connection(int inside, uint16_t port) {
    int outside = connect_host_loopback(port);
    if (outside < 0) {
        close(inside);  // nobody listens on the host: the command sees a reset
        return;
    }
    std::lock_guard<std::mutex> lock(mutex_);
    connections_.push_back(std::make_unique<Connection>(inside, outside));
}

void LoopbackRelay::reap_finished() {
    std::lock_guard<std::mutex> lock(mutex_);
    connections_.remove_if([](const std::unique_ptr<Connection>& c) { return c->running == 0; });
}

}  // namespace oms::landlock
