#include "stream_pump.hpp"

#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>

namespace oms::docker {

namespace {

// Keeps a dead reader of stdout/stderr from killing the host with SIGPIPE
// while this thread writes; a SIGPIPE raised meanwhile is consumed.
class SigpipeBlock {
public:
    SigpipeBlock() {
        sigemptyset(&pipe_);
        sigaddset(&pipe_, SIGPIPE);
        pthread_sigmask(SIG_BLOCK, &pipe_, &old_);
    }
    ~SigpipeBlock() {
        timespec zero{0, 0};
        while (sigtimedwait(&pipe_, nullptr, &zero) > 0) {
        }
        pthread_sigmask(SIG_SETMASK, &old_, nullptr);
    }

private:
    sigset_t pipe_, old_;
};

}  // namespace

void write_fully(int fd, const char* data, size_t size) {
    while (size > 0) {
        ssize_t n = write(fd, data, size);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return;
        data += n;
        size -= static_cast<size_t>(n);
    }
}

void FrameDemuxer::feed(const char* data, size_t size) {
    pending_.append(data, size);
    size_t pos = 0;
    while (pending_.size() - pos >= 8) {
        const auto* header = reinterpret_cast<const unsigned char*>(pending_.data() + pos);
        uint32_t length = (uint32_t(header[4]) << 24) | (uint32_t(header[5]) << 16) | (uint32_t(header[6]) << 8) |
                          uint32_t(header[7]);
        if (pending_.size() - pos - 8 < length) break;
        write_fully(header[0] == 2 ? err_fd_ : out_fd_, pending_.data() + pos + 8, length);
        pos += 8 + length;
    }
    pending_.erase(0, pos);
}

void pump_exec_stream(int socket_fd, const std::string& early, int in_fd, int out_fd, int err_fd, bool tty) {
    SigpipeBlock no_sigpipe;
    FrameDemuxer demux(out_fd, err_fd);
    auto deliver = [&](const char* data, size_t size) {
        if (tty) write_fully(out_fd, data, size);
        else demux.feed(data, size);
    };
    if (!early.empty()) deliver(early.data(), early.size());
    bool stdin_open = in_fd >= 0;
    if (!stdin_open) shutdown(socket_fd, SHUT_WR);
    char buf[65536];
    for (;;) {
        pollfd fds[2] = {{socket_fd, POLLIN, 0}, {stdin_open ? in_fd : -1, POLLIN, 0}};
        if (poll(fds, 2, -1) < 0) {
            if (errno == EINTR) continue;
            return;
        }
        if (fds[1].revents & (POLLIN | POLLHUP | POLLERR)) {
            ssize_t n = read(in_fd, buf, sizeof buf);
            if (n > 0) {
                if (send(socket_fd, buf, static_cast<size_t>(n), MSG_NOSIGNAL) < 0) stdin_open = false;
            } else if (n == 0 || errno != EINTR) {
                stdin_open = false;
                shutdown(socket_fd, SHUT_WR);
            }
        }
        if (fds[0].revents & (POLLIN | POLLHUP | POLLERR)) {
            ssize_t n = read(socket_fd, buf, sizeof buf);
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) return;
            deliver(buf, static_cast<size_t>(n));
        }
    }
}

}  // namespace oms::docker
