#include "loopback_relay.hpp"
#include "published_sockets.hpp"
#include "relay_socket.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <system_error>

namespace oms::landlock {

namespace {

// epoll tokens: the stop event, then one per listener, then one per
// connection (both of its sockets carry the same token).
constexpr uint64_t kStopToken = 0;
constexpr uint64_t kFirstListenerToken = 1;
constexpr uint64_t kFirstConnectionToken = 1 << 16;
constexpr int kBacklog = 128;
constexpr int kAcceptsPerWakeup = 64;  // then the other sockets get a turn

[[noreturn]] void fail(const char* what) { throw std::system_error(errno, std::generic_category(), what); }

// Starts a non-blocking connect to the host's 127.0.0.1:<port>; -1 when it
// failed at once (nothing listens, or no descriptor left).
int start_host_connect(uint16_t port) {
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) return -1;
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(port);
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 && errno != EINPROGRESS) {
        close(fd);
        return -1;
    }
    return fd;
}

}  // namespace

LoopbackRelay::LoopbackRelay(std::vector<int> listeners, std::vector<uint16_t> ports)
    : LoopbackRelay(std::move(listeners), std::move(ports), {}, {}, -1) {}

LoopbackRelay::LoopbackRelay(std::vector<int> listeners, std::vector<uint16_t> ports, std::vector<int> published,
                             std::vector<uint16_t> published_ports, int channel)
    : epoll_(epoll_create1(EPOLL_CLOEXEC)), stop_(eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)), channel_(channel) {
    // The child listened only where the host had a listener just before the
    // start: that is the relay's first view of the host, until it looks.
    std::set<uint16_t> answering;
    for (size_t i = 0; i < listeners.size(); ++i) {
        int accepting = 0;
        socklen_t size = sizeof accepting;
        getsockopt(listeners[i], SOL_SOCKET, SO_ACCEPTCONN, &accepting, &size);
        listeners_.push_back(Listener{listeners[i], ports[i], accepting != 0});
        if (accepting) answering.insert(ports[i]);
    }
    host_ports_ = answering;
    for (size_t i = 0; i < published.size(); ++i)
        listeners_.push_back(Listener{published[i], published_ports[i], true, false, true});  // listening already
    try {
        // accept must never block the one loop that serves every connection.
        for (const Listener& l : listeners_)
            if (fcntl(l.fd, F_SETFL, fcntl(l.fd, F_GETFL) | O_NONBLOCK) != 0) fail("relay fcntl");
        if (epoll_.get() < 0) fail("relay epoll");
        if (stop_.get() < 0) fail("relay eventfd");
        if (!watch(stop_.get(), kStopToken, EPOLLIN)) fail("relay epoll_ctl");
        for (size_t i = 0; i < listeners_.size(); ++i)
            if (listeners_[i].listening && !watch(listeners_[i].fd, kFirstListenerToken + i, EPOLLIN))
                fail("relay epoll_ctl");
        loop_ = std::thread([this] { run(); });
    } catch (...) {
        for (const Listener& l : listeners_) close(l.fd);
        throw;
    }
}

LoopbackRelay::~LoopbackRelay() {
    uint64_t one = 1;
    ssize_t ignored = write(stop_.get(), &one, sizeof one);
    (void)ignored;
    loop_.join();
    connections_.clear();
    for (const Listener& l : listeners_) close(l.fd);
}

bool LoopbackRelay::watch(int fd, uint64_t token, uint32_t events) {
    epoll_event event{};
    event.events = events;
    event.data.u64 = token;
    return epoll_ctl(epoll_.get(), EPOLL_CTL_ADD, fd, &event) == 0;
}

void LoopbackRelay::run() {
    auto next_check = std::chrono::steady_clock::now() + kHostCheckInterval;
    epoll_event events[64];
    for (;;) {
        // Rounded up: a wait cut short of the check would spin until it is due.
        auto wait = std::chrono::ceil<std::chrono::milliseconds>(next_check - std::chrono::steady_clock::now());
        int count = epoll_wait(epoll_.get(), events, 64, wait.count() > 0 ? static_cast<int>(wait.count()) : 0);
        if (count < 0 && errno != EINTR) return;  // cannot happen with valid descriptors
        for (int i = 0; i < count; ++i) {
            uint64_t token = events[i].data.u64;
            if (token == kStopToken) return;
            if (token >= kFirstConnectionToken) serve(token);
            else accept_from(listeners_[token - kFirstListenerToken]);
        }
        if (check_soon_ || std::chrono::steady_clock::now() >= next_check) {
            check_host();
            next_check = std::chrono::steady_clock::now() + kHostCheckInterval;
        } else {
            update_listeners();
        }
    }
}

void LoopbackRelay::check_host() {
    host_ports_ = host_check_.listening_ports();
    check_soon_ = false;
    for (Listener& l : listeners_) l.accept_failed = false;
    update_listeners();
}

// A listener listens only while the host's port has a listener and a slot
// is free. Stopping is shutdown(SHUT_RD) on the listening socket (and no
// SO_REUSEADDR, so the command cannot bind the port meanwhile): the
// kernel then refuses new connects (and resets any not yet accepted);
// listen() on the same bound socket takes them again. A stopped listener is
// out of the epoll set, where it would report a hang-up forever.
// A published port's listener is on the host's 127.0.0.1, where any local
// user may bind: it never stops listening (between a stop and the next
// listen another user's server took the port over, in a review), so past
// its share each connection is accepted and reset instead; out of
// descriptors, it only leaves the epoll set until the next check, its
// backlog keeping the port.
void LoopbackRelay::update_listeners() {
    bool room = connections_.size() < kMaxConnections;
    for (size_t i = 0; i < listeners_.size(); ++i) {
        Listener& l = listeners_[i];
        if (l.published) {
            const bool watched = !l.accept_failed;
            if (watched == l.listening) continue;
            if (watched ? watch(l.fd, kFirstListenerToken + i, EPOLLIN)
                        : epoll_ctl(epoll_.get(), EPOLL_CTL_DEL, l.fd, nullptr) == 0)
                l.listening = watched;
            continue;
        }
        bool host_answers = !host_ports_ || host_ports_->count(l.port) != 0;
        bool wanted = room && host_answers && !l.accept_failed;
        if (wanted == l.listening) continue;
        if (wanted) {
            if (!relay_start_listening(l.fd, kBacklog) || !watch(l.fd, kFirstListenerToken + i, EPOLLIN)) {
                relay_stop_listening(l.fd);  // try again at the next check
                continue;
            }
        } else {
            epoll_ctl(epoll_.get(), EPOLL_CTL_DEL, l.fd, nullptr);
            relay_stop_listening(l.fd);
        }
        l.listening = wanted;
    }
}

void LoopbackRelay::accept_from(Listener& listener) {
    for (int i = 0; i < kAcceptsPerWakeup && listener.listening; ++i) {
        int inside = accept4(listener.fd, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (inside < 0) {
            if (errno == EINTR || errno == ECONNABORTED) continue;
            // Out of descriptors or memory: the connects waiting would wake
            // us again and again; stop listening until the next check.
            if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM)
                listener.accept_failed = true;
            return;
        }
        if (connections_.size() >= kMaxConnections || (listener.published && published_.size() >= kMaxPublished)) {
            close_with_reset(inside);  // arrived before the listener stopped
            continue;
        }
        if (listener.published) open_published(inside, listener.port);
        else open_connection(inside, listener.port);
        if (connections_.size() >= kMaxConnections || published_.size() >= kMaxPublished) update_listeners();
    }
}

void LoopbackRelay::open_connection(int inside, uint16_t port) {
    int outside = start_host_connect(port);
    if (outside < 0) {
        close_with_reset(inside);  // the host's listener went away since the last check
        check_soon_ = true;
        return;
    }
    carry(inside, outside);
}

uint64_t LoopbackRelay::carry(int inside, int outside) {
    uint64_t token = kFirstConnectionToken + next_id_++;
    auto connection = std::make_unique<RelayConnection>(inside, outside);
    // Edge-triggered: the connection moves data until the kernel says
    // "would block", and hears again only when that changes.
    uint32_t events = EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET;
    if (!watch(inside, token, events) || !watch(outside, token, events)) {
        connection->abandon();  // the kernel is out of memory for epoll: refuse this one
        return 0;
    }
    connections_.emplace(token, std::move(connection));
    return token;
}

// `accepted` came from the host; the sandbox's socket connects to its
// 127.0.0.1:<port> and plays the part the host's socket plays for a relayed
// port (RelayConnection: a refused connect resets the other side).
void LoopbackRelay::open_published(int accepted, uint16_t port) {
    const int sandbox = published_sockets::ask_for_socket(channel_.get());
    sockaddr_in source{};
    source.sin_family = AF_INET;
    source.sin_addr.s_addr = htonl(published_sockets::kRelaySource);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(port);
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (sandbox < 0 || bind(sandbox, reinterpret_cast<sockaddr*>(&source), sizeof source) != 0 ||
        (connect(sandbox, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 && errno != EINPROGRESS)) {
        if (sandbox >= 0) close(sandbox);
        close_with_reset(accepted);  // the run is ending, or out of descriptors
        return;
    }
    if (const uint64_t token = carry(accepted, sandbox)) published_.insert(token);
}

void LoopbackRelay::serve(uint64_t token) {
    auto found = connections_.find(token);
    if (found == connections_.end()) return;  // closed earlier in this batch
    RelayConnection::State state = found->second->service();
    if (state == RelayConnection::State::open) return;
    if (state == RelayConnection::State::host_refused) check_soon_ = true;
    connections_.erase(found);  // closing a socket removes it from the epoll set
    published_.erase(token);
}

}  // namespace oms::landlock
