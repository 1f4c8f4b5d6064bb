#include "published_sockets.hpp"
#include "descriptor_passing.hpp"

#include <errno.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

namespace oms::landlock::published_sockets {

namespace {

int served = -1;

constexpr char kRequest = 'S';
constexpr int kAnswerWaitMs = 1000;

void answer(int channel) {
    const int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    // Out of descriptors: an answer without one; the launcher resets that connection.
    send_with_descriptors(channel, kRequest, &fd, fd >= 0 ? 1 : 0, MSG_NOSIGNAL);
    if (fd >= 0) close(fd);
}

}  // namespace

void serve_on(int channel) { served = channel; }

int descriptor() { return served; }

int watch(pollfd* fds, int count, int capacity) {
    if (served >= 0 && count < capacity) fds[count++] = pollfd{served, POLLIN, 0};
    return count;
}

void serve(const pollfd* fds, int count) {
    for (int i = 0; i < count; ++i) {
        if (served < 0 || fds[i].fd != served || !fds[i].revents) continue;
        char request = 0;
        const ssize_t got = recv(served, &request, 1, MSG_DONTWAIT);
        if (got == 1 && request == kRequest) {
            answer(served);
        } else if (got == 0 || (got < 0 && errno != EAGAIN && errno != EINTR)) {
            close(served);  // the launcher is gone: nothing more is asked
            served = -1;
        }
    }
}

int ask_for_socket(int channel) {
    const char request = kRequest;
    if (send(channel, &request, 1, MSG_NOSIGNAL | MSG_DONTWAIT) != 1) return -1;
    pollfd ready{channel, POLLIN, 0};
    if (poll(&ready, 1, kAnswerWaitMs) != 1) return -1;
    char tag = 0;
    int fd = -1;
    const ssize_t got = receive_with_descriptors(channel, tag, &fd, 1, MSG_DONTWAIT);
    if (got != 1 || tag != kRequest) {  // one socket, in an answer to this request
        if (got >= 1) close(fd);
        return -1;
    }
    return fd;
}

}  // namespace oms::landlock::published_sockets
