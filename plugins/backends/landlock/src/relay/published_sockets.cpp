#include "published_sockets.hpp"

#include <errno.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

namespace oms::landlock::published_sockets {

namespace {

int served = -1;

constexpr char kRequest = 'S';
constexpr int kAnswerWaitMs = 1000;

void answer(int channel) {
    char tag = kRequest;
    iovec data{&tag, 1};
    const int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))];
    msghdr message{};
    message.msg_iov = &data;
    message.msg_iovlen = 1;
    if (fd >= 0) {  // out of descriptors: an answer without one, the launcher resets that connection
        message.msg_control = control;
        message.msg_controllen = sizeof control;
        cmsghdr* header = CMSG_FIRSTHDR(&message);
        header->cmsg_level = SOL_SOCKET;
        header->cmsg_type = SCM_RIGHTS;
        header->cmsg_len = CMSG_LEN(sizeof(int));
        memcpy(CMSG_DATA(header), &fd, sizeof fd);
    }
    while (sendmsg(channel, &message, MSG_NOSIGNAL) < 0 && errno == EINTR) {
    }
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
    iovec data{&tag, 1};
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))];
    msghdr message{};
    message.msg_iov = &data;
    message.msg_iovlen = 1;
    message.msg_control = control;
    message.msg_controllen = sizeof control;
    if (recvmsg(channel, &message, MSG_DONTWAIT | MSG_CMSG_CLOEXEC) != 1 || tag != kRequest) return -1;
    int fd = -1;
    for (cmsghdr* h = CMSG_FIRSTHDR(&message); h; h = CMSG_NXTHDR(&message, h))
        if (h->cmsg_level == SOL_SOCKET && h->cmsg_type == SCM_RIGHTS && h->cmsg_len == CMSG_LEN(sizeof(int)))
            memcpy(&fd, CMSG_DATA(h), sizeof fd);
    return fd;
}

}  // namespace oms::landlock::published_sockets
