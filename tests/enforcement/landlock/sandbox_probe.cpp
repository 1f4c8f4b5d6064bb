// A small tool the enforcement tests run INSIDE the sandbox for the attempts
// a shell cannot make: connect to a given address, open sockets of a given
// kind, reopen a file through /proc/self/fd after O_PATH, read an inherited
// descriptor, and the refused process syscalls. It prints "OK <detail>" or
// "DENIED <errno name>" and exits 0 or 1, so a test can tell "refused by the
// sandbox" from "the tool broke".
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/netlink.h>
#include <netinet/in.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <termios.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <string>

namespace {

int denied(const char* what) {
    printf("DENIED %s %s\n", what, strerrorname_np(errno) ? strerrorname_np(errno) : "?");
    return 1;
}

int ok(const std::string& detail) {
    printf("OK %s\n", detail.c_str());
    return 0;
}

int connect_tcp(const char* host, int port) {
    sockaddr_storage address{};
    socklen_t size;
    int family;
    if (strchr(host, ':')) {
        auto* a6 = reinterpret_cast<sockaddr_in6*>(&address);
        a6->sin6_family = family = AF_INET6;
        a6->sin6_port = htons(port);
        if (inet_pton(AF_INET6, host, &a6->sin6_addr) != 1) return denied("bad-address");
        size = sizeof *a6;
    } else {
        auto* a4 = reinterpret_cast<sockaddr_in*>(&address);
        a4->sin_family = family = AF_INET;
        a4->sin_port = htons(port);
        if (inet_pton(AF_INET, host, &a4->sin_addr) != 1) return denied("bad-address");
        size = sizeof *a4;
    }
    int fd = socket(family, SOCK_STREAM, 0);
    if (fd < 0) return denied("socket");
    timeval timeout{3, 0};
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof timeout);
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
    if (connect(fd, reinterpret_cast<sockaddr*>(&address), size) != 0) return denied("connect");
    char reply[256] = {0};
    ssize_t n = read(fd, reply, sizeof reply - 1);
    if (n <= 0) return denied("read-reply");
    return ok(std::string("reply=") + reply);
}

int open_socket(const char* kind) {
    int fd = -1;
    std::string k = kind;
    if (k == "udp") fd = socket(AF_INET, SOCK_DGRAM, 0);
    else if (k == "udp6") fd = socket(AF_INET6, SOCK_DGRAM, 0);
    else if (k == "raw") fd = socket(AF_INET, SOCK_RAW, IPPROTO_ICMP);
    else if (k == "netlink") fd = socket(AF_NETLINK, SOCK_RAW, NETLINK_ROUTE);
    else if (k == "packet") fd = socket(AF_PACKET, SOCK_RAW, 0);
    else if (k == "tcp") fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    else if (k == "unix") fd = socket(AF_UNIX, SOCK_STREAM, 0);
    else return denied("unknown-kind");
    return fd < 0 ? denied("socket") : ok(kind);
}

int print_fd(int fd) {
    char buffer[4096];
    ssize_t n = read(fd, buffer, sizeof buffer - 1);
    if (n < 0) return denied("read");
    buffer[n] = '\0';
    return ok(std::string("content=") + buffer);
}

int reopen_via_proc(const char* path) {
    int fd = open(path, O_PATH);
    if (fd < 0) return denied("open-o_path");
    std::string proc = "/proc/self/fd/" + std::to_string(fd);
    int again = open(proc.c_str(), O_RDONLY);
    if (again < 0) return denied("reopen");
    return print_fd(again);
}

int abstract_connect(const char* name) {
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    if (fd < 0) return denied("socket");
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    size_t len = strlen(name);
    memcpy(address.sun_path + 1, name, len);
    socklen_t size = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + 1 + len);
    if (connect(fd, reinterpret_cast<sockaddr*>(&address), size) != 0) return denied("connect");
    return ok("connected");
}

// Binds an abstract socket and connects to it from the same process: the
// positive control for abstract_connect (same sandbox: allowed).
int abstract_self(const char* name) {
    int server = socket(AF_UNIX, SOCK_STREAM, 0);
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    size_t len = strlen(name);
    memcpy(address.sun_path + 1, name, len);
    socklen_t size = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + 1 + len);
    if (bind(server, reinterpret_cast<sockaddr*>(&address), size) != 0 || listen(server, 1) != 0)
        return denied("bind");
    return abstract_connect(name);
}

int call(const char* what, long result) { return result < 0 ? denied(what) : ok(what); }

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) return 2;
    std::string c = argv[1];
    const char* a = argc > 2 ? argv[2] : "";
    const char* b = argc > 3 ? argv[3] : "0";
    if (c == "connect") return connect_tcp(a, atoi(b));
    if (c == "socket") return open_socket(a);
    if (c == "read-fd") return print_fd(atoi(a));
    if (c == "reopen") return reopen_via_proc(a);
    if (c == "abstract-connect") return abstract_connect(a);
    if (c == "abstract-self") return abstract_self(a);
    if (c == "ptrace") return call("ptrace", ptrace(PTRACE_ATTACH, atoi(a), nullptr, nullptr));
    if (c == "kill0") return call("kill", kill(atoi(a), 0));
    if (c == "tiocsti") {
        char ch = 'x';
        return call("tiocsti", ioctl(0, TIOCSTI, &ch));
    }
    if (c == "io_uring") return call("io_uring_setup", syscall(SYS_io_uring_setup, 1, calloc(1, 256)));
    if (c == "bpf") return call("bpf", syscall(SYS_bpf, 0, nullptr, 0));
    if (c == "unshare") return call("unshare", unshare(CLONE_NEWUSER));
    if (c == "mount") return call("mount", mount("none", "/mnt", "tmpfs", 0, nullptr));
    if (c == "umount") return call("umount", umount2(a, MNT_DETACH));
    if (c == "truncate") return call("truncate", truncate(a, 0));
    if (c == "create-setuid") return call("create-setuid", open(a, O_WRONLY | O_CREAT | O_EXCL, 04755));
    if (c == "setxattr") return call("setxattr", setxattr(a, "user.oms-test", "1", 1, 0));
    if (c == "bind-tcp") {
        int fd = socket(AF_INET, SOCK_STREAM, 0);
        sockaddr_in address{};
        address.sin_family = AF_INET;
        address.sin_port = htons(atoi(a));
        address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        return call("bind", bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address));
    }
    return 2;
}
