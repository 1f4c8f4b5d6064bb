#include "socket_relay.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <list>
#include <string>

namespace oms::docker::relay {

namespace {

// Two sockets; side i's bytes wait in pending[i] until side 1-i takes them.
// Side 0 is the accepted connection, side 1 the far end.
struct Pair {
    int fd[2] = {-1, -1};
    std::string pending[2];
    bool ended[2] = {false, false};     // side i sent its end (read returned 0)
    bool shut[2] = {false, false};      // side i was told the other ended (shutdown SHUT_WR)
    bool failed = false;
    FarState far = FarState::Ready;
    std::function<void()> on_connect_failed;
    std::chrono::steady_clock::time_point setup_deadline;
    short wanted(int i) const {
        if (i == 1 && far == FarState::Connecting) return POLLOUT;  // the connect's completion
        short events = 0;
        if (!ended[i] && pending[i].size() < kBufferBytes) events |= POLLIN;
        if (!pending[1 - i].empty()) events |= POLLOUT;
        return events;
    }
    bool done() const { return failed || (ended[0] && ended[1] && pending[0].empty() && pending[1].empty()); }
};

void set_nonblocking(int fd) { fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK); }

void read_side(Pair& p, int i) {
    char buffer[kBufferBytes];
    const size_t room = kBufferBytes - p.pending[i].size();
    ssize_t n = read(p.fd[i], buffer, room);
    if (n > 0) {
        size_t skip = 0;
        if (i == 1 && p.far == FarState::AwaitingStatus) {
            if (buffer[0] != 0) {
                p.failed = true;
                return;
            }
            p.far = FarState::Ready;
            skip = 1;
        }
        p.pending[i].append(buffer + skip, static_cast<size_t>(n) - skip);
    } else if (n == 0) {
        p.ended[i] = true;
        if (i == 1 && p.far == FarState::AwaitingStatus) p.failed = true;  // no status: refused
    } else if (errno != EAGAIN && errno != EINTR) {
        p.failed = true;
    }
}

// The far end's connect completed (POLLOUT): status 0 to the accepted side
// ahead of anything else, or the pair fails.
void finish_connect(Pair& p) {
    int error = 0;
    socklen_t size = sizeof error;
    if (getsockopt(p.fd[1], SOL_SOCKET, SO_ERROR, &error, &size) != 0 || error != 0) {
        p.failed = true;
        if (p.on_connect_failed) p.on_connect_failed();
        return;
    }
    p.far = FarState::Ready;
    p.pending[1].insert(0, 1, '\0');
}

void write_side(Pair& p, int i) {
    std::string& data = p.pending[1 - i];
    ssize_t n = send(p.fd[i], data.data(), data.size(), MSG_NOSIGNAL);
    if (n > 0) data.erase(0, static_cast<size_t>(n));
    else if (n < 0 && errno != EAGAIN && errno != EINTR) p.failed = true;
}

// Passes each side's end on once everything it sent has been delivered.
void pass_ends(Pair& p) {
    if (p.far != FarState::Ready) return;  // nothing is passed on before the far end is set up
    for (int i = 0; i < 2; ++i)
        if (p.ended[i] && p.pending[i].empty() && !p.shut[1 - i]) {
            shutdown(p.fd[1 - i], SHUT_WR);
            p.shut[1 - i] = true;
        }
}

void close_pair(Pair& p) {
    for (int fd : p.fd) {
        if (p.failed) close_with_reset(fd);
        else close(fd);
    }
}

}  // namespace

int start_loopback_connect(uint16_t port) {
    const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(port);
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (fd >= 0 && (connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0 || errno == EINPROGRESS))
        return fd;
    if (fd >= 0) close(fd);
    return -1;
}

FarEnd open_through_unix_socket(const char* socket_path, uint16_t port) {
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    if (std::strlen(socket_path) >= sizeof address.sun_path) return {};
    std::strcpy(address.sun_path, socket_path);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0) return {};
    const unsigned char request[2] = {static_cast<unsigned char>(port >> 8), static_cast<unsigned char>(port & 0xff)};
    if (connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
        send(fd, request, sizeof request, MSG_NOSIGNAL | MSG_DONTWAIT) != static_cast<ssize_t>(sizeof request)) {
        close(fd);
        return {};
    }
    return {fd, FarState::AwaitingStatus, nullptr};
}

void close_with_reset(int fd) {
    linger hard{1, 0};
    setsockopt(fd, SOL_SOCKET, SO_LINGER, &hard, sizeof hard);
    close(fd);
}

int listen_loopback(uint16_t port) {
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return -1;
    int on = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(port);
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 || listen(fd, 64) != 0) {
        const int saved = errno;
        close(fd);
        errno = saved;
        return -1;
    }
    return fd;
}

namespace {

using Clock = std::chrono::steady_clock;

// An accepted connection whose request has not fully arrived yet.
struct Request {
    int fd;
    size_t index;
    std::string bytes;
    Clock::time_point deadline;
};

void add_pair(std::list<Pair>& pairs, int accepted, const FarEnd& far) {
    set_nonblocking(accepted);
    set_nonblocking(far.fd);
    pairs.emplace_back();
    Pair& added = pairs.back();
    added.fd[0] = accepted;
    added.fd[1] = far.fd;
    added.far = far.state;
    added.on_connect_failed = far.on_connect_failed;
    added.setup_deadline = Clock::now() + std::chrono::seconds(kSetupSeconds);
}

void open_pair(std::list<Pair>& pairs, const OpenFarEnd& open_far_end, int accepted, size_t index,
               const std::string& request) {
    const FarEnd far = open_far_end(accepted, index, request);
    if (far.fd < 0) close_with_reset(accepted);
    else add_pair(pairs, accepted, far);
}

// Reads what is there of a request; true when it is finished with (complete,
// or failed and closed).
bool read_request(Request& r, size_t request_bytes, std::list<Pair>& pairs, const OpenFarEnd& open_far_end) {
    char buffer[16];
    const size_t want = std::min(sizeof buffer, request_bytes - r.bytes.size());
    ssize_t n = recv(r.fd, buffer, want, MSG_DONTWAIT);
    if (n < 0 && (errno == EAGAIN || errno == EINTR)) return false;
    if (n <= 0) {
        close(r.fd);
        return true;
    }
    r.bytes.append(buffer, static_cast<size_t>(n));
    if (r.bytes.size() < request_bytes) return false;
    open_pair(pairs, open_far_end, r.fd, r.index, r.bytes);
    return true;
}

}  // namespace

namespace {

// One poll loop over the listeners, the connections still naming their
// port, and the relayed pairs.
class RelayLoop {
public:
    RelayLoop(const std::vector<int>& listeners, const OpenFarEnd& open_far_end, int stop_fd, size_t request_bytes,
              size_t max_pairs)
        : listeners_(listeners), open_(open_far_end), stop_fd_(stop_fd), request_bytes_(request_bytes),
          max_pairs_(max_pairs) {}

    ~RelayLoop() {
        for (Request& r : requests_) close(r.fd);
        for (Pair& p : pairs_) close_pair(p);
    }

    void run() {
        for (;;) {
            build_poll_set();
            if (poll(polled_.data(), polled_.size(), setting_up() ? 100 : -1) < 0) {
                if (errno == EINTR) continue;
                return;
            }
            size_t k = 0;
            if (stop_fd_ >= 0 && polled_[k++].revents) return;
            accept_new(k);
            std::vector<Request*> finished = serve_requests(k);
            serve_pairs(k);
            sweep(finished);
        }
    }

private:
    void build_poll_set() {
        polled_.clear();
        owners_.clear();
        askers_.clear();
        if (stop_fd_ >= 0) polled_.push_back({stop_fd_, POLLIN, 0});
        for (int l : listeners_) polled_.push_back({l, POLLIN, 0});
        for (Request& r : requests_) polled_.push_back({r.fd, POLLIN, 0}), askers_.push_back(&r);
        for (Pair& p : pairs_)
            for (int i = 0; i < 2; ++i) polled_.push_back({p.fd[i], p.wanted(i), 0}), owners_.push_back(&p);
    }

    bool setting_up() const {
        bool any = !requests_.empty();
        for (const Pair& p : pairs_) any |= p.far != FarState::Ready;
        return any;
    }

    void accept_new(size_t& k) {
        for (size_t index = 0; index < listeners_.size(); ++index, ++k) {
            if (!(polled_[k].revents & POLLIN)) continue;
            int accepted = accept4(listeners_[index], nullptr, nullptr, SOCK_CLOEXEC);
            if (accepted < 0) continue;
            if (pairs_.size() + requests_.size() >= max_pairs_) close_with_reset(accepted);
            else if (request_bytes_ == 0) open_pair(pairs_, open_, accepted, index, "");
            else requests_.push_back(Request{accepted, index, "", Clock::now() + std::chrono::seconds(kSetupSeconds)});
        }
    }

    std::vector<Request*> serve_requests(size_t& k) {
        std::vector<Request*> finished;
        for (size_t r = 0; r < askers_.size(); ++r, ++k)
            if (polled_[k].revents && read_request(*askers_[r], request_bytes_, pairs_, open_))
                finished.push_back(askers_[r]);
        return finished;
    }

    void serve_pairs(size_t k) {
        for (size_t q = 0; k < polled_.size(); ++k, ++q) {
            Pair& p = *owners_[q];
            const int i = polled_[k].fd == p.fd[0] ? 0 : 1;
            const short got = polled_[k].revents;
            if (i == 1 && p.far == FarState::Connecting) {
                if (got) finish_connect(p);
                continue;
            }
            if ((got & (POLLIN | POLLHUP | POLLERR)) && !p.ended[i] && p.pending[i].size() < kBufferBytes)
                read_side(p, i);
            if ((got & POLLOUT) && !p.failed) write_side(p, i);
            if (got & POLLERR) p.failed = true;
        }
    }

    // Drops finished or late requests, fails pairs not set up in time,
    // passes ends on and closes the pairs that are done.
    void sweep(const std::vector<Request*>& finished) {
        const auto now = Clock::now();
        for (auto it = requests_.begin(); it != requests_.end();) {
            const bool done = std::find(finished.begin(), finished.end(), &*it) != finished.end();
            if (!done && now > it->deadline) close(it->fd);  // never said what it wants
            if (done || now > it->deadline) it = requests_.erase(it);
            else ++it;
        }
        for (auto it = pairs_.begin(); it != pairs_.end();) {
            if (it->far != FarState::Ready && now > it->setup_deadline) it->failed = true;
            pass_ends(*it);
            if (it->done()) {
                close_pair(*it);
                it = pairs_.erase(it);
            } else {
                ++it;
            }
        }
    }

    const std::vector<int>& listeners_;
    const OpenFarEnd& open_;
    const int stop_fd_;
    const size_t request_bytes_, max_pairs_;
    std::list<Pair> pairs_;
    std::list<Request> requests_;
    std::vector<pollfd> polled_;
    std::vector<Pair*> owners_;     // the pair of each polled pair entry, in order
    std::vector<Request*> askers_;  // the request of each polled request entry, in order
};

}  // namespace

void run_relay(const std::vector<int>& listeners, const OpenFarEnd& open_far_end, int stop_fd, size_t request_bytes,
               size_t max_pairs) {
    RelayLoop(listeners, open_far_end, stop_fd, request_bytes, max_pairs).run();
}

}  // namespace oms::docker::relay
