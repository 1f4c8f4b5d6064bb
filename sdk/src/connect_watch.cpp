#include <oms/connect_watch.hpp>

#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include <linux/seccomp.h>

namespace oms::connect_watch {

namespace {

constexpr size_t kLargestAddress = sizeof(sockaddr_in6);

bool loopback_v4(const uint8_t* address) {
    return address[0] == 127 || (address[0] == 0 && address[1] == 0 && address[2] == 0 && address[3] == 0);
}

// /proc/PID/mem at `where`; no formatting functions (a copy of a threaded
// process may call this).
ssize_t read_through_proc(uint32_t pid, uint64_t where, uint8_t* bytes, size_t size) {
    char path[32] = "/proc/";
    size_t at = 6;
    char digits[10];
    size_t n = 0;
    do digits[n++] = static_cast<char>('0' + pid % 10), pid /= 10;
    while (pid && n < sizeof digits);
    while (n) path[at++] = digits[--n];
    memcpy(path + at, "/mem", 5);
    const int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    const ssize_t got = pread(fd, bytes, size, static_cast<off_t>(where));
    close(fd);
    return got;
}

// Up to `size` bytes at `where` in the caller's memory; how many were read
// (0: none). The watcher may read its command: the same user, and its
// ancestor (landlock's init), or the same user (the docker runner).
size_t read_caller(uint32_t pid, uint64_t where, void* bytes, size_t size) {
    if (where == 0 || size == 0) return 0;
    iovec local{bytes, size};
    iovec remote{reinterpret_cast<void*>(where), size};
    ssize_t got = process_vm_readv(static_cast<pid_t>(pid), &local, 1, &remote, 1, 0);
    // Where a seccomp profile refuses process_vm_readv (a container's), the
    // same read through /proc, under the same ptrace access check.
    if (got < 0 && (errno == EPERM || errno == ENOSYS))
        got = read_through_proc(pid, where, static_cast<uint8_t*>(bytes), size);
    return got > 0 ? static_cast<size_t>(got) : 0;
}

// The destination the stopped call names, into `bytes`; how many bytes were
// read. connect(fd, address, length); sendto(fd, buffer, size, flags,
// address, length); sendmsg(fd, message, flags), the address in the message.
size_t read_destination(const seccomp_notif& request, uint8_t* bytes) {
    uint64_t where = 0, size = 0;
    if (request.data.nr == __NR_connect) {
        where = request.data.args[1], size = request.data.args[2];
    } else if (request.data.nr == __NR_sendto) {
        where = request.data.args[4], size = request.data.args[5];
    } else if (request.data.nr == __NR_sendmsg) {
        msghdr message{};
        if (read_caller(request.pid, request.data.args[1], &message, sizeof message) != sizeof message) return 0;
        where = reinterpret_cast<uint64_t>(message.msg_name), size = message.msg_namelen;
    }
    return read_caller(request.pid, where, bytes, size < kLargestAddress ? static_cast<size_t>(size) : kLargestAddress);
}

// One byte with room for one descriptor beside it (SCM_RIGHTS).
struct OneDescriptorMessage {
    char tag = 'W';
    iovec data{&tag, 1};
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
    msghdr header{};
    OneDescriptorMessage() {
        header.msg_iov = &data;
        header.msg_iovlen = 1;
        header.msg_control = control;
        header.msg_controllen = sizeof control;
    }
    OneDescriptorMessage(const OneDescriptorMessage&) = delete;
    OneDescriptorMessage& operator=(const OneDescriptorMessage&) = delete;
};

void describe(const uint8_t* bytes, size_t size, Call& call) {
    call = Call{};
    sa_family_t family = 0;
    if (size >= sizeof family) memcpy(&family, bytes, sizeof family);
    uint16_t port_network_order;
    if (family == AF_INET && size >= sizeof(sockaddr_in)) {
        call.family = AF_INET;
        memcpy(call.address, bytes + offsetof(sockaddr_in, sin_addr), 4);
        memcpy(&port_network_order, bytes + offsetof(sockaddr_in, sin_port), 2);
    } else if (family == AF_INET6 && size >= sizeof(sockaddr_in6)) {
        call.family = AF_INET6;
        memcpy(call.address, bytes + offsetof(sockaddr_in6, sin6_addr), 16);
        memcpy(&port_network_order, bytes + offsetof(sockaddr_in6, sin6_port), 2);
    } else {
        return;
    }
    call.port = ntohs(port_network_order);
    call.off_loopback = off_loopback(bytes, size);
}

}  // namespace

int install(const sock_fprog& filter) {
    return static_cast<int>(syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER, &filter));
}

bool send_listener(int channel, int listener) {
    OneDescriptorMessage message;
    cmsghdr* header = CMSG_FIRSTHDR(&message.header);
    header->cmsg_level = SOL_SOCKET;
    header->cmsg_type = SCM_RIGHTS;
    header->cmsg_len = CMSG_LEN(sizeof(int));
    memcpy(CMSG_DATA(header), &listener, sizeof listener);
    return sendmsg(channel, &message.header, MSG_NOSIGNAL) == 1;
}

bool hand_over(const sock_fprog& filter, int channel) {
    const int listener = install(filter);
    if (listener < 0) return false;
    const bool sent = send_listener(channel, listener);
    close(listener);
    return sent;
}

// The caller's wake-up hands the CPU to the waiting watcher and back
// (Linux 6.6; the headers here may be older): measured here, a stopped call
// costs about 20 us so, 30 us without.
constexpr unsigned long kNotifSetFlags = SECCOMP_IOW(4, uint64_t);
constexpr uint64_t kSyncWakeUp = 1;

int receive_listener(int channel) {
    OneDescriptorMessage message;
    ssize_t got;
    do got = recvmsg(channel, &message.header, MSG_CMSG_CLOEXEC);
    while (got < 0 && errno == EINTR);
    const cmsghdr* header = got == 1 ? CMSG_FIRSTHDR(&message.header) : nullptr;
    if (!header || header->cmsg_level != SOL_SOCKET || header->cmsg_type != SCM_RIGHTS ||
        header->cmsg_len != CMSG_LEN(sizeof(int)))
        return -1;
    int listener;
    memcpy(&listener, CMSG_DATA(header), sizeof listener);
    ioctl(listener, kNotifSetFlags, kSyncWakeUp);  // refused by an older kernel: the same, slower
    return listener;
}

Answer answer(int listener, Call& call) {
    seccomp_notif request;
    memset(&request, 0, sizeof request);  // the kernel refuses a request not zeroed
    if (ioctl(listener, SECCOMP_IOCTL_NOTIF_RECV, &request) != 0)
        return errno == EINTR || errno == ENOENT ? Answer::nothing : Answer::finished;
    uint8_t bytes[kLargestAddress] = {0};
    const size_t size = read_destination(request, bytes);
    // Still the same call: its process did not end, its pid given to another,
    // between the notification and the read.
    const bool read_its_own = ioctl(listener, SECCOMP_IOCTL_NOTIF_ID_VALID, &request.id) == 0;
    seccomp_notif_resp response;
    memset(&response, 0, sizeof response);
    response.id = request.id;
    response.flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
    if (ioctl(listener, SECCOMP_IOCTL_NOTIF_SEND, &response) != 0 || !read_its_own) return Answer::nothing;
    describe(bytes, size, call);
    return Answer::call;
}

bool off_loopback(const uint8_t* bytes, size_t size) {
    if (size < sizeof(sa_family_t)) return false;
    sa_family_t family;
    memcpy(&family, bytes, sizeof family);
    if (family == AF_INET)
        return size >= sizeof(sockaddr_in) && !loopback_v4(bytes + offsetof(sockaddr_in, sin_addr));
    if (family != AF_INET6 || size < sizeof(sockaddr_in6)) return false;
    in6_addr address;
    memcpy(&address, bytes + offsetof(sockaddr_in6, sin6_addr), sizeof address);
    if (IN6_IS_ADDR_V4MAPPED(&address)) return !loopback_v4(address.s6_addr + 12);
    return !IN6_IS_ADDR_LOOPBACK(&address) && !IN6_IS_ADDR_UNSPECIFIED(&address);
}

}  // namespace oms::connect_watch
