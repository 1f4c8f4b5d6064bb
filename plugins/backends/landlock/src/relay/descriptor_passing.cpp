#include "descriptor_passing.hpp"

#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

namespace oms::landlock {

ssize_t send_with_descriptors(int channel, char tag, const int* fds, size_t count, int flags) {
    if (count > kMaxPassedDescriptors) {
        errno = E2BIG;
        return -1;
    }
    iovec data{&tag, 1};
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int) * kMaxPassedDescriptors)];
    msghdr message{};
    message.msg_iov = &data;
    message.msg_iovlen = 1;
    if (count > 0) {
        message.msg_control = control;
        message.msg_controllen = CMSG_SPACE(sizeof(int) * count);
        cmsghdr* header = CMSG_FIRSTHDR(&message);
        header->cmsg_level = SOL_SOCKET;
        header->cmsg_type = SCM_RIGHTS;
        header->cmsg_len = CMSG_LEN(sizeof(int) * count);
        memcpy(CMSG_DATA(header), fds, sizeof(int) * count);
    }
    ssize_t sent;
    do {
        sent = sendmsg(channel, &message, flags);
    } while (sent < 0 && errno == EINTR);
    return sent;
}

ssize_t receive_with_descriptors(int channel, char& tag, int* fds, size_t capacity, int flags) {
    if (capacity > kMaxPassedDescriptors) capacity = kMaxPassedDescriptors;
    iovec data{&tag, 1};
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int) * kMaxPassedDescriptors)];
    msghdr message{};
    message.msg_iov = &data;
    message.msg_iovlen = 1;
    if (capacity > 0) {  // none wanted: the kernel closes any that come
        message.msg_control = control;
        message.msg_controllen = CMSG_SPACE(sizeof(int) * capacity);
    }
    // Descriptors may come with no byte (a 0-byte message on a seqpacket
    // channel): read the control data whatever recvmsg returned.
    const ssize_t got = recvmsg(channel, &message, flags | MSG_CMSG_CLOEXEC);
    if (got < 0) return -1;
    size_t received = 0, came = 0;
    for (cmsghdr* h = CMSG_FIRSTHDR(&message); h; h = CMSG_NXTHDR(&message, h)) {
        if (h->cmsg_level != SOL_SOCKET || h->cmsg_type != SCM_RIGHTS) continue;
        const size_t count = (h->cmsg_len - CMSG_LEN(0)) / sizeof(int);
        for (size_t i = 0; i < count; ++i, ++came) {
            int fd;
            memcpy(&fd, CMSG_DATA(h) + i * sizeof(int), sizeof fd);
            // The control space rounds up: one more may fit than asked for.
            if (received < capacity)
                fds[received++] = fd;
            else
                close(fd);
        }
    }
    if (got == 0) {  // no byte: a peer gone, or a message of descriptors alone
        for (size_t i = 0; i < received; ++i) close(fds[i]);
        errno = 0;
        return -1;
    }
    if (message.msg_flags & MSG_CTRUNC) ++came;  // some never came: not the count sent
    return static_cast<ssize_t>(came);
}

}  // namespace oms::landlock
