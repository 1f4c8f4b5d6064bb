#include "oms/core/egress_proxy.hpp"

#include "oms/core/address_class.hpp"
#include "oms/core/egress_request.hpp"
#include "oms/core/egress_resolver.hpp"
#include "oms/core/error.hpp"
#include "oms/core/local_address.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <map>
#include <optional>
#include <utility>

namespace oms::core {

namespace {

constexpr uint64_t kListenerToken = 1, kStopToken = 2, kResolverToken = 3, kFirstId = 8;

// Bytes read from one side, not yet written to the other.
struct Buffer {
    std::string bytes;
    bool has_room() const { return bytes.size() < EgressProxy::kBufferBytes; }
};

enum class Phase { request, resolving, connecting, relaying, closing };

struct Connection {
    uint64_t id = 0;
    int client = -1, upstream = -1;
    Phase phase = Phase::request;
    std::chrono::steady_clock::time_point started = std::chrono::steady_clock::now();
    std::string head;  // the request so far
    bool greeted = false;
    ProxyRequest request;
    std::vector<sockaddr_storage> candidates;  // addresses still to try, in order
    bool pinned = false;                       // candidates are the user's pin: any address, this machine too
    std::string local_refused;                 // a candidate skipped as this machine's own address
    bool tried_elsewhere = false;              // a connect was made to a candidate off this machine
    Buffer to_upstream, to_client;
    bool client_ended = false, upstream_ended = false;
    bool upstream_shut = false, client_shut = false;
    bool reset = false;  // close with a reset: a side failed
    bool client_watched = true, upstream_watched = false;
};

// The socket address of a numeric address text, or nullopt.
std::optional<sockaddr_storage> numeric_address(const std::string& text, int port) {
    sockaddr_storage storage{};
    auto* v4 = reinterpret_cast<sockaddr_in*>(&storage);
    auto* v6 = reinterpret_cast<sockaddr_in6*>(&storage);
    if (inet_pton(AF_INET, text.c_str(), &v4->sin_addr) == 1) {
        v4->sin_family = AF_INET;
        v4->sin_port = htons(static_cast<uint16_t>(port));
        return storage;
    }
    storage = {};
    if (inet_pton(AF_INET6, text.c_str(), &v6->sin6_addr) == 1) {
        v6->sin6_family = AF_INET6;
        v6->sin6_port = htons(static_cast<uint16_t>(port));
        return storage;
    }
    return std::nullopt;
}

void set_port(sockaddr_storage& address, int port) {
    if (address.ss_family == AF_INET) reinterpret_cast<sockaddr_in*>(&address)->sin_port = htons(static_cast<uint16_t>(port));
    if (address.ss_family == AF_INET6) reinterpret_cast<sockaddr_in6*>(&address)->sin6_port = htons(static_cast<uint16_t>(port));
}

socklen_t length_of(const sockaddr_storage& address) {
    return address.ss_family == AF_INET ? sizeof(sockaddr_in) : sizeof(sockaddr_in6);
}

void close_socket(int fd, bool reset) {
    if (fd < 0) return;
    if (reset) {
        linger zero{1, 0};
        setsockopt(fd, SOL_SOCKET, SO_LINGER, &zero, sizeof zero);
    }
    ::close(fd);
}

}  // namespace

struct EgressProxy::Loop {
    EgressRules rules;
    ViolationLog& log;
    std::atomic<size_t>& open;
    int listener = -1, epoll = -1, stop = -1;
    bool accepting = true;
    EgressResolver resolver;
    uint64_t next_id = kFirstId;
    std::map<uint64_t, Connection> connections;

    Loop(EgressRules r, ViolationLog& l, std::atomic<size_t>& o) : rules(std::move(r)), log(l), open(o) {}
    ~Loop() {
        for (auto& [id, c] : connections) {
            close_socket(c.client, true);
            close_socket(c.upstream, true);
        }
        for (int fd : {listener, epoll, stop})
            if (fd >= 0) ::close(fd);
    }

    void run();
    void accept_clients();
    void watch(int fd, uint64_t token, uint32_t events, int op);
    void update(Connection& c);
    void service(Connection& c);
    void read_request(Connection& c);
    void decide(Connection& c);
    void resolved(Resolution& answer);
    void connect_next(Connection& c);
    void connect_done(Connection& c);
    void pump(Connection& c);
    void refuse(Connection& c, const std::string& rule);
    void fail(Connection& c, ProxyOutcome outcome, const std::string& message);
    bool finished(const Connection& c) const;
    void drop(uint64_t id);
    void expire_requests();
};

void EgressProxy::Loop::watch(int fd, uint64_t token, uint32_t events, int op) {
    epoll_event e{};
    e.events = events;
    e.data.u64 = token;
    epoll_ctl(epoll, op, fd, &e);
}

// The interest of both sockets follows the state: read only where there is
// room, write only what is waiting (level-triggered, so nothing is lost).
void EgressProxy::Loop::update(Connection& c) {
    uint32_t client_events = 0, upstream_events = 0;
    if (c.phase == Phase::request) client_events |= EPOLLIN;
    if (c.phase == Phase::relaying && !c.client_ended && c.to_upstream.has_room()) client_events |= EPOLLIN;
    if (!c.to_client.bytes.empty()) client_events |= EPOLLOUT;
    if (c.phase == Phase::connecting) upstream_events |= EPOLLOUT;
    if (c.phase == Phase::relaying) {
        if (!c.upstream_ended && c.to_client.has_room()) upstream_events |= EPOLLIN;
        if (!c.to_upstream.bytes.empty()) upstream_events |= EPOLLOUT;
    }
    // A side that ended both ways has nothing more to say, but epoll would
    // report its hang-up on every turn: stop watching it (no busy loop while
    // the other side drains).
    if (c.client_watched && c.client_ended && c.client_shut) {
        epoll_ctl(epoll, EPOLL_CTL_DEL, c.client, nullptr);
        c.client_watched = false;
    }
    if (c.upstream_watched && c.upstream_ended && c.upstream_shut) {
        epoll_ctl(epoll, EPOLL_CTL_DEL, c.upstream, nullptr);
        c.upstream_watched = false;
    }
    if (c.client_watched) watch(c.client, c.id << 1, client_events, EPOLL_CTL_MOD);
    if (c.upstream_watched) watch(c.upstream, c.id << 1 | 1, upstream_events, EPOLL_CTL_MOD);
}

void EgressProxy::Loop::accept_clients() {
    while (connections.size() < kMaxConnections) {
        const int fd = ::accept4(listener, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0) break;  // EAGAIN, or out of descriptors: the next readiness retries
        Connection c;
        c.id = next_id++;
        c.client = fd;
        watch(fd, c.id << 1, EPOLLIN, EPOLL_CTL_ADD);
        connections.emplace(c.id, std::move(c));
    }
    open = connections.size();
    // Full: stop taking connections; they wait in the backlog until one ends.
    const bool want = connections.size() < kMaxConnections;
    if (want != accepting) {
        accepting = want;
        watch(listener, kListenerToken, want ? uint32_t{EPOLLIN} : 0u, EPOLL_CTL_MOD);
    }
}

void EgressProxy::Loop::refuse(Connection& c, const std::string& rule) {
    const std::string host = printable_host(c.request.host);
    log.record(Violation{"egress-proxy", host, c.request.port, rule});
    fail(c, ProxyOutcome::refused, "oms: " + host + ":" + std::to_string(c.request.port) + " refused: " + rule);
}

void EgressProxy::Loop::fail(Connection& c, ProxyOutcome outcome, const std::string& message) {
    c.to_client.bytes += proxy_reply(c.request.protocol, outcome, message);
    c.phase = Phase::closing;
    if (c.upstream >= 0) {
        close_socket(c.upstream, true);  // closing also takes it out of the epoll set
        c.upstream = -1;
        c.upstream_watched = false;
    }
}

void EgressProxy::Loop::read_request(Connection& c) {
    char buffer[4096];
    const size_t room = kMaxRequestHead + 1 - std::min(c.head.size(), kMaxRequestHead);
    const ssize_t n = ::read(c.client, buffer, std::min(sizeof buffer, room));
    if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
        c.client_ended = true;
        c.phase = Phase::closing;
        return;
    }
    if (n < 0) return;
    c.head.append(buffer, static_cast<size_t>(n));
    while (c.phase == Phase::request) {
        ParseStep step = parse_proxy_request(c.head, c.greeted);
        switch (step.state) {
            case ParseStep::State::need_more: return;
            case ParseStep::State::reply:
                c.to_client.bytes += step.reply;
                c.head.erase(0, step.consumed);
                c.greeted = true;
                break;
            case ParseStep::State::bad:
                if (step.refused_host)
                    log.record(Violation{"egress-proxy", printable_host(step.request.host), step.request.port,
                                         step.why});
                c.to_client.bytes += step.reply;
                c.phase = Phase::closing;
                return;
            case ParseStep::State::done:
                c.request = std::move(step.request);
                c.head.clear();
                decide(c);
                return;
        }
    }
}

void EgressProxy::Loop::decide(Connection& c) {
    const EgressDecision verdict = rules.decide(c.request.host, c.request.port);
    if (!verdict.allowed) return refuse(c, verdict.rule);
    if (auto pinned = rules.pinned_address(c.request.host)) {
        // The user's own word for this name: any address class.
        c.candidates = {*numeric_address(*pinned, c.request.port)};
        c.pinned = true;
        return connect_next(c);
    }
    if (auto literal = numeric_address(c.request.host, c.request.port)) {
        const std::string kind = address_class(reinterpret_cast<const sockaddr*>(&*literal));
        if (kind != "public") return refuse(c, "address " + kind + " (only a pinned name may lead there)");
        c.candidates = {*literal};
        return connect_next(c);
    }
    c.phase = Phase::resolving;
    resolver.ask(c.id, c.request.host, c.request.port);
}

void EgressProxy::Loop::resolved(Resolution& answer) {
    auto found = connections.find(answer.id);
    if (found == connections.end() || found->second.phase != Phase::resolving) return;
    Connection& c = found->second;
    if (answer.addresses.empty()) {
        fail(c, ProxyOutcome::unreachable, "oms: cannot resolve " + printable_host(c.request.host) + ": " + answer.error);
    } else {
        std::string refused_kind, refused_address;
        for (auto& address : answer.addresses) {
            set_port(address, c.request.port);
            const auto* a = reinterpret_cast<const sockaddr*>(&address);
            const std::string kind = address_class(a);
            if (kind == "public") {
                c.candidates.push_back(address);
            } else if (refused_kind.empty()) {
                refused_kind = kind;
                refused_address = address_text(a);
            }
        }
        // Only the addresses checked here are ever connected to, so a name
        // that changes its answer (DNS rebinding) cannot lead inside.
        if (c.candidates.empty())
            refuse(c, "resolves to " + refused_address + " (" + refused_kind + "), which only a pinned name may reach");
        else
            connect_next(c);
    }
    update(c);
}

void EgressProxy::Loop::connect_next(Connection& c) {
    while (!c.candidates.empty()) {
        sockaddr_storage address = c.candidates.front();
        c.candidates.erase(c.candidates.begin());
        // Asked now, just before the connect: the machine's addresses change
        // (a VPN comes up), and what is connected to is what was checked.
        const auto* a = reinterpret_cast<const sockaddr*>(&address);
        if (!c.pinned && address_locality(a) != Locality::elsewhere) {
            if (c.local_refused.empty()) c.local_refused = address_text(a);
            continue;
        }
        const int fd = ::socket(address.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        if (fd < 0) continue;
        c.tried_elsewhere = true;
        if (::connect(fd, reinterpret_cast<sockaddr*>(&address), length_of(address)) == 0 || errno == EINPROGRESS) {
            c.upstream = fd;
            c.upstream_watched = true;
            c.phase = Phase::connecting;
            watch(fd, c.id << 1 | 1, EPOLLOUT, EPOLL_CTL_ADD);
            return;
        }
        ::close(fd);
    }
    if (!c.local_refused.empty() && !c.tried_elsewhere)
        return refuse(c, "leads to " + c.local_refused +
                             ", an address of this machine, which only a pinned name may reach");
    fail(c, ProxyOutcome::unreachable,
         "oms: cannot connect to " + printable_host(c.request.host) + ":" + std::to_string(c.request.port));
}

void EgressProxy::Loop::connect_done(Connection& c) {
    int error = 0;
    socklen_t length = sizeof error;
    if (getsockopt(c.upstream, SOL_SOCKET, SO_ERROR, &error, &length) != 0) error = errno;
    if (error == EINPROGRESS || error == EALREADY) return;
    if (error != 0) {
        epoll_ctl(epoll, EPOLL_CTL_DEL, c.upstream, nullptr);
        ::close(c.upstream);
        c.upstream = -1;
        c.upstream_watched = false;
        return connect_next(c);
    }
    c.phase = Phase::relaying;
    c.to_client.bytes += proxy_reply(c.request.protocol, ProxyOutcome::connected, "");
    c.to_upstream.bytes += std::exchange(c.request.upstream_bytes, {});
}

namespace {

// Reads from `from` into `into` while it has room; false on a failure.
bool fill(int from, Buffer& into, bool& ended) {
    if (ended || !into.has_room()) return true;
    char chunk[16 * 1024];
    const size_t room = EgressProxy::kBufferBytes - into.bytes.size();
    const ssize_t n = ::read(from, chunk, std::min(sizeof chunk, room));
    if (n > 0) into.bytes.append(chunk, static_cast<size_t>(n));
    if (n == 0) ended = true;
    return n >= 0 || errno == EAGAIN || errno == EINTR;
}

// Writes what `from` holds to `to`; false on a failure.
bool drain(int to, Buffer& from) {
    if (from.bytes.empty()) return true;
    const ssize_t n = ::send(to, from.bytes.data(), from.bytes.size(), MSG_NOSIGNAL);
    if (n > 0) from.bytes.erase(0, static_cast<size_t>(n));
    return n >= 0 || errno == EAGAIN || errno == EINTR;
}

}  // namespace

void EgressProxy::Loop::pump(Connection& c) {
    const bool ok = fill(c.client, c.to_upstream, c.client_ended) && drain(c.upstream, c.to_upstream) &&
                    fill(c.upstream, c.to_client, c.upstream_ended) && drain(c.client, c.to_client);
    if (!ok) {
        c.reset = true;
        return;
    }
    // An end of stream is passed on once everything before it was.
    if (c.client_ended && c.to_upstream.bytes.empty() && !c.upstream_shut) {
        ::shutdown(c.upstream, SHUT_WR);
        c.upstream_shut = true;
    }
    if (c.upstream_ended && c.to_client.bytes.empty() && !c.client_shut) {
        ::shutdown(c.client, SHUT_WR);
        c.client_shut = true;
    }
}

void EgressProxy::Loop::service(Connection& c) {
    switch (c.phase) {
        case Phase::request:
            // A SOCKS5 greeting's answer must leave before the request comes.
            if (!drain(c.client, c.to_client)) c.reset = true;
            if (!c.reset) read_request(c);
            break;
        case Phase::resolving: break;
        case Phase::connecting: connect_done(c); break;
        case Phase::relaying: pump(c); break;
        case Phase::closing:
            if (!drain(c.client, c.to_client)) c.reset = true;
            break;
    }
}

bool EgressProxy::Loop::finished(const Connection& c) const {
    if (c.reset) return true;
    if (c.phase == Phase::closing) return c.to_client.bytes.empty();
    return c.phase == Phase::relaying && c.upstream_shut && c.client_shut;
}

void EgressProxy::Loop::drop(uint64_t id) {
    auto found = connections.find(id);
    if (found == connections.end()) return;
    Connection& c = found->second;
    // A refusal or error reply was sent whole: end the stream cleanly so the
    // client reads it; anything cut short ends with a reset.
    close_socket(c.client, c.reset);
    close_socket(c.upstream, c.reset);
    connections.erase(found);
    accept_clients();
}

// A client that never finishes its request would hold a slot for ever.
void EgressProxy::Loop::expire_requests() {
    const auto now = std::chrono::steady_clock::now();
    std::vector<uint64_t> expired;
    for (auto& [id, c] : connections)
        if ((c.phase == Phase::request || c.phase == Phase::resolving || c.phase == Phase::connecting) &&
            now - c.started > kRequestTimeout)
            expired.push_back(id);
    for (uint64_t id : expired) {
        connections[id].reset = true;
        drop(id);
    }
}

void EgressProxy::Loop::run() {
    epoll_event events[64];
    while (true) {
        const int n = epoll_wait(epoll, events, 64, 1000);
        if (n < 0 && errno != EINTR) return;
        for (int i = 0; i < n; ++i) {
            const uint64_t token = events[i].data.u64;
            if (token == kStopToken) return;
            if (token == kListenerToken) {
                accept_clients();
                continue;
            }
            if (token == kResolverToken) {
                for (Resolution& answer : resolver.take()) resolved(answer);
                continue;
            }
            const uint64_t id = token >> 1;
            auto found = connections.find(id);
            if (found == connections.end()) continue;
            Connection& c = found->second;
            const bool client_side = (token & 1) == 0;
            if (client_side && (events[i].events & EPOLLERR)) c.reset = true;
            // A client gone while its destination is looked up or connected.
            if (client_side && (events[i].events & EPOLLHUP) && c.phase != Phase::relaying) c.reset = true;
            if (!c.reset) service(c);
            if (finished(c))
                drop(id);
            else
                update(c);
        }
        expire_requests();
    }
}

EgressProxy::EgressProxy(EgressRules rules, ViolationLog& log)
    : loop_(std::make_unique<Loop>(std::move(rules), log, open_)) {
    Loop& l = *loop_;
    l.listener = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof address;
    if (l.listener < 0 || ::bind(l.listener, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
        ::listen(l.listener, 256) != 0 ||
        getsockname(l.listener, reinterpret_cast<sockaddr*>(&address), &length) != 0)
        throw UserError(kExitUnavailable, std::string("refusing to run: the egress proxy cannot listen on 127.0.0.1: ") +
                                              std::strerror(errno));
    port_ = ntohs(address.sin_port);
    l.epoll = epoll_create1(EPOLL_CLOEXEC);
    l.stop = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (l.epoll < 0 || l.stop < 0)
        throw UserError(kExitUnavailable, "refusing to run: the egress proxy cannot start its event loop");
    l.watch(l.listener, kListenerToken, EPOLLIN, EPOLL_CTL_ADD);
    l.watch(l.stop, kStopToken, EPOLLIN, EPOLL_CTL_ADD);
    l.watch(l.resolver.wake_fd(), kResolverToken, EPOLLIN, EPOLL_CTL_ADD);
    thread_ = std::thread([&l] { l.run(); });
}

EgressProxy::~EgressProxy() {
    const uint64_t one = 1;
    if (::write(loop_->stop, &one, sizeof one) < 0) {
        // Cannot fail for a fresh eventfd; the join below would hang otherwise.
    }
    if (thread_.joinable()) thread_.join();
    open_ = 0;
}

}  // namespace oms::core
