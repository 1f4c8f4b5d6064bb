#include "relay_connection.hpp"

#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>

namespace oms::landlock {

namespace {

bool would_block(int error) { return error == EAGAIN || error == EWOULDBLOCK; }

}  // namespace

void close_with_reset(int fd) {
    linger abort_now{1, 0};
    setsockopt(fd, SOL_SOCKET, SO_LINGER, &abort_now, sizeof abort_now);
    close(fd);
}

RelayConnection::RelayConnection(int inside, int outside)
    : inside_(inside), outside_(outside), to_host_{inside, outside}, to_command_{outside, inside} {}

RelayConnection::~RelayConnection() {
    if (reset_) {
        close_with_reset(inside_);
        close_with_reset(outside_);
    } else {
        close(inside_);
        close(outside_);
    }
}

RelayConnection::State RelayConnection::fail(State why) {
    reset_ = true;
    return why;
}

// The host side is usable once its non-blocking connect finished without
// an error; until then only the command's bytes are buffered.
RelayConnection::Connect RelayConnection::host_connect_progress() {
    if (connected_) return Connect::done;
    int error = 0;
    socklen_t size = sizeof error;
    if (getsockopt(outside_, SOL_SOCKET, SO_ERROR, &error, &size) != 0 || error != 0) return Connect::failed;
    sockaddr_storage peer{};
    socklen_t peer_size = sizeof peer;
    if (getpeername(outside_, reinterpret_cast<sockaddr*>(&peer), &peer_size) != 0)
        return errno == ENOTCONN ? Connect::pending : Connect::failed;
    connected_ = true;
    return Connect::done;
}

RelayConnection::Step RelayConnection::step(Direction& d, bool may_write) {
    bool moved = false;
    if (!d.ended && d.end < kBufferBytes) {
        ssize_t n = recv(d.from, d.buffer.get() + d.end, kBufferBytes - d.end, 0);
        if (n > 0) {
            d.end += static_cast<size_t>(n);
            moved = true;
        } else if (n == 0) {
            d.ended = moved = true;
        } else if (!would_block(errno) && errno != EINTR) {
            return Step::failed;
        }
    }
    if (may_write && d.start < d.end) {
        ssize_t n = send(d.to, d.buffer.get() + d.start, d.end - d.start, MSG_NOSIGNAL);
        if (n > 0) {
            d.start += static_cast<size_t>(n);
            if (d.start == d.end) d.start = d.end = 0;
            moved = true;
        } else if (n < 0 && !would_block(errno) && errno != EINTR) {
            return Step::failed;
        }
    }
    if (may_write && d.ended && d.start == d.end && !d.passed_on) {
        shutdown(d.to, SHUT_WR);
        d.passed_on = moved = true;
    }
    return moved ? Step::moved : Step::idle;
}

RelayConnection::State RelayConnection::service() {
    if (host_connect_progress() == Connect::failed) return fail(State::host_refused);
    // Until every direction would block: an edge-triggered event comes again
    // only after that.
    for (;;) {
        Step up = step(to_host_, connected_);
        Step down = connected_ ? step(to_command_, true) : Step::idle;
        if (up == Step::failed || down == Step::failed) return fail(State::reset);
        if (to_host_.passed_on && to_command_.passed_on) return State::finished;
        if (up == Step::idle && down == Step::idle) return State::open;
    }
}

}  // namespace oms::landlock
