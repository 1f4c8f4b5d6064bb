// A small tool the enforcement tests run INSIDE the sandbox for the attempts
// a shell cannot make: connect to a given address, open sockets of a given
// kind, reopen a file through /proc/self/fd after O_PATH, read an inherited
// descriptor, the refused process syscalls, and traffic through the
// loopback relay (a large echo both ways, a flood of connections), a test
// server on the private loopback. It prints "OK <detail>" or
// "DENIED <errno name>" and exits 0 or 1, so a test can tell "refused by the
// sandbox" from "the tool broke".
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/netlink.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/mount.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <termios.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

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

// A blocking TCP connection to 127.0.0.1:<port>, or -1 (errno set).
int connect_loopback(int port) {
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return -1;
    timeval timeout{3, 0};
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof timeout);
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(port);
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
        int saved = errno;
        close(fd);
        errno = saved;
        return -1;
    }
    return fd;
}

// Sends `text` and reads the same text back (the host side echoes).
bool echoes(int fd, const std::string& text) {
    if (send(fd, text.data(), text.size(), MSG_NOSIGNAL) != static_cast<ssize_t>(text.size())) return false;
    std::string back;
    char buffer[256];
    while (back.size() < text.size()) {
        ssize_t n = read(fd, buffer, sizeof buffer);
        if (n <= 0) return false;
        back.append(buffer, static_cast<size_t>(n));
    }
    return back == text;
}

unsigned char pattern_byte(size_t i) { return static_cast<unsigned char>((i * 131 + (i >> 12)) & 0xff); }

// Sends `total` bytes to an echo service while reading them back, then
// half-closes and expects the service's end of stream after the last byte:
// a large transfer both ways, and a half-close each way.
int bulk_echo(int port, size_t total) {
    int fd = connect_loopback(port);
    if (fd < 0) return denied("connect");
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
    std::vector<unsigned char> chunk(65536);
    size_t sent = 0, received = 0;
    bool shut = false;
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (std::chrono::steady_clock::now() < deadline) {
        if (sent == total && !shut) shut = shutdown(fd, SHUT_WR) == 0;
        pollfd p{fd, static_cast<short>(POLLIN | (sent < total ? POLLOUT : 0)), 0};
        if (poll(&p, 1, 1000) < 0) return denied("poll");
        if (p.revents & POLLOUT) {
            size_t n = std::min(chunk.size(), total - sent);
            for (size_t i = 0; i < n; ++i) chunk[i] = pattern_byte(sent + i);
            ssize_t w = send(fd, chunk.data(), n, MSG_NOSIGNAL);
            if (w < 0 && errno != EAGAIN) return denied("send");
            if (w > 0) sent += static_cast<size_t>(w);
        }
        if (p.revents & (POLLIN | POLLHUP | POLLERR)) {
            unsigned char in[65536];
            ssize_t r = read(fd, in, sizeof in);
            if (r < 0 && errno != EAGAIN) return denied("read");
            if (r == 0) {
                if (received != total) return denied("early-end");
                return ok("echo bytes=" + std::to_string(received));
            }
            for (ssize_t i = 0; i < r; ++i)
                if (in[i] != pattern_byte(received + static_cast<size_t>(i))) return denied("corrupt");
            if (r > 0) received += static_cast<size_t>(r);
        }
    }
    errno = ETIMEDOUT;
    return denied("bulk-timeout");
}

// Opens a control connection, then `count` more at once, and says how many
// were carried to the host (their byte came back), refused at connect, or
// reset afterwards; holds them `hold_ms` (the test counts oms's threads
// meanwhile), checks the control connection still echoes, closes the flood
// and checks a new connection is carried again. With `marks`, it creates
// `marks`.start and `marks`.end around the hold, so the test can measure
// oms's CPU time during the hold alone.
int flood(int port, int count, int hold_ms, const char* marks) {
    rlimit files{};
    getrlimit(RLIMIT_NOFILE, &files);
    files.rlim_cur = files.rlim_max;
    setrlimit(RLIMIT_NOFILE, &files);
    int control = connect_loopback(port);
    if (control < 0 || !echoes(control, "control-before")) return denied("control");
    std::vector<int> open;
    int refused = 0, other = 0, reset = 0, carried = 0;
    std::string other_error;
    for (int i = 0; i < count; ++i) {
        int fd = connect_loopback(port);
        if (fd >= 0) open.push_back(fd);
        else if (errno == ECONNREFUSED) ++refused;
        else if (errno == ECONNRESET) ++reset;  // reset while the kernel still held it in the handshake
        else if (++other == 1) other_error = strerrorname_np(errno) ? strerrorname_np(errno) : "?";
    }
    std::vector<pollfd> waiting;
    for (int fd : open) {
        if (send(fd, "x", 1, MSG_NOSIGNAL) == 1) waiting.push_back(pollfd{fd, POLLIN, 0});
        else ++reset;
    }
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    while (!waiting.empty() && std::chrono::steady_clock::now() < deadline) {
        if (poll(waiting.data(), waiting.size(), 200) < 0) break;
        for (size_t i = 0; i < waiting.size();) {
            if (!waiting[i].revents) {
                ++i;
                continue;
            }
            char byte = 0;
            if (read(waiting[i].fd, &byte, 1) == 1 && byte == 'x') ++carried;
            else ++reset;
            waiting[i] = waiting.back();
            waiting.pop_back();
        }
    }
    int silent = static_cast<int>(waiting.size());
    printf("HOLD carried=%d refused=%d reset=%d silent=%d other=%d%s%s\n", carried, refused, reset, silent, other,
           other ? " first=" : "", other_error.c_str());
    fflush(stdout);
    auto mark = [marks](const char* suffix) {
        if (!*marks) return;
        int fd = ::open((std::string(marks) + suffix).c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
        if (fd >= 0) close(fd);
    };
    mark(".start");
    std::this_thread::sleep_for(std::chrono::milliseconds(hold_ms));
    mark(".end");
    bool control_after = echoes(control, "control-after");
    for (int fd : open) close(fd);
    bool fresh = false;
    for (auto until = std::chrono::steady_clock::now() + std::chrono::seconds(3);
         !fresh && std::chrono::steady_clock::now() < until;) {
        int fd = connect_loopback(port);
        fresh = fd >= 0 && echoes(fd, "fresh");
        if (fd >= 0) close(fd);
        if (!fresh) std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    if (!control_after) return denied("control-after");
    if (!fresh) return denied("fresh-after");
    return ok("flood control=echo fresh=echo");
}

int call(const char* what, long result) { return result < 0 ? denied(what) : ok(what); }

// A seccomp filter of its own with a user-notification listener (as a
// sandbox or supervisor inside the command would make): allows everything.
long seccomp_listener() {
    sock_filter allow[] = {BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)};
    sock_fprog program{1, allow};
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return -1;
    return syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER, &program);
}

// getaddrinfo(name) after opening `idle` TCP connections to 127.0.0.1:53
// that send nothing (a command trying to stall the resolver): "OK resolved
// <address> <ms>" or "DENIED resolve <EAI_ name> <ms>".
int resolve(const char* name, int idle) {
    std::vector<int> held;
    for (int i = 0; i < idle; ++i) held.push_back(connect_loopback(53));
    addrinfo hints{};
    hints.ai_socktype = SOCK_STREAM;
    addrinfo* found = nullptr;
    const auto start = std::chrono::steady_clock::now();
    const int error = getaddrinfo(name, "80", &hints, &found);
    const long ms = static_cast<long>(std::chrono::duration_cast<std::chrono::milliseconds>(
                                          std::chrono::steady_clock::now() - start).count());
    for (int fd : held)
        if (fd >= 0) close(fd);
    if (error != 0) {
        const char* code = error == EAI_NONAME ? "EAI_NONAME" : error == EAI_AGAIN ? "EAI_AGAIN" : "EAI_OTHER";
        printf("DENIED resolve %s %ld (%s)\n", code, ms, gai_strerror(error));
        return 1;
    }
    char text[INET6_ADDRSTRLEN] = "?";
    if (found->ai_family == AF_INET)
        inet_ntop(AF_INET, &reinterpret_cast<sockaddr_in*>(found->ai_addr)->sin_addr, text, sizeof text);
    else if (found->ai_family == AF_INET6)
        inet_ntop(AF_INET6, &reinterpret_cast<sockaddr_in6*>(found->ai_addr)->sin6_addr, text, sizeof text);
    freeaddrinfo(found);
    return ok(std::string("resolved ") + text + " " + std::to_string(ms));
}

// A listening TCP socket on 127.0.0.1:<port> (0: any), with SO_REUSEADDR as
// most servers set it (and SO_REUSEPORT with `share`), or -1.
int listen_loopback(int port, bool share) {
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    int one = 1;
    if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) != 0) return -1;
    if (share && setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof one) != 0) return -1;
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(port);
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 || listen(fd, 16) != 0) return -1;
    return fd;
}

// A test server inside the sandbox: listens on 127.0.0.1:<port>, writes the
// port it got into <file> (renamed into place), answers "inside-<port>" to
// `count` connections, then exits (or after 20 s).
int serve(int port, const char* file, int count) {
    int fd = listen_loopback(port, false);
    if (fd < 0) return denied("listen");
    sockaddr_in address{};
    socklen_t size = sizeof address;
    getsockname(fd, reinterpret_cast<sockaddr*>(&address), &size);
    const std::string reply = "inside-" + std::to_string(ntohs(address.sin_port));
    const std::string partial = std::string(file) + ".partial";
    FILE* out = fopen(partial.c_str(), "w");
    if (!out) return denied("port-file");
    fprintf(out, "%d\n", ntohs(address.sin_port));
    fclose(out);
    if (rename(partial.c_str(), file) != 0) return denied("port-file");
    alarm(20);
    for (int served = 0; served < count; ++served) {
        int client = accept(fd, nullptr, nullptr);
        if (client < 0) return denied("accept");
        send(client, reply.data(), reply.size(), MSG_NOSIGNAL);
        close(client);
    }
    return ok("served " + std::to_string(count));
}

// Swaps the names `first` and `second` in `folder` (renameat2
// RENAME_EXCHANGE) as fast as it can for `seconds`: a folder on a path oms
// checks is a folder or a link at every instant, never missing.
int exchange_for(const char* folder, const char* first, const char* second, int seconds) {
    int dir = open(folder, O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (dir < 0) return denied("open");
    const time_t end = time(nullptr) + seconds;
    long swaps = 0;
    while (time(nullptr) < end)
        for (int i = 0; i < 1000; ++i, ++swaps)
            if (syscall(SYS_renameat2, dir, first, dir, second, 2 /* RENAME_EXCHANGE */) != 0) return denied("renameat2");
    // An even count leaves both names where they started.
    if (swaps % 2 && syscall(SYS_renameat2, dir, first, dir, second, 2) != 0) return denied("renameat2");
    return ok("swapped " + std::to_string(swaps));
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) return 2;
    std::string c = argv[1];
    const char* a = argc > 2 ? argv[2] : "";
    const char* b = argc > 3 ? argv[3] : "0";
    if (c == "connect") return connect_tcp(a, atoi(b));
    if (c == "print-file") {
        int fd = open(a, O_RDONLY | O_CLOEXEC);
        return fd < 0 ? denied("open") : print_fd(fd);
    }
    if (c == "resolve") return resolve(a, argc > 3 ? atoi(b) : 0);
    if (c == "serve") return serve(atoi(a), b, argc > 4 ? atoi(argv[4]) : 1);
    if (c == "listen-reuse") return call("listen", listen_loopback(atoi(a), false));
    if (c == "listen-reuseport") return call("listen", listen_loopback(atoi(a), true));
    if (c == "echo-bulk") return bulk_echo(atoi(a), strtoull(b, nullptr, 10));
    if (c == "flood") return flood(atoi(a), atoi(b), argc > 4 ? atoi(argv[4]) : 0, argc > 5 ? argv[5] : "");
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
    if (c == "seccomp-listener") return call("seccomp-listener", seccomp_listener());
    if (c == "io_uring") return call("io_uring_setup", syscall(SYS_io_uring_setup, 1, calloc(1, 256)));
    if (c == "bpf") return call("bpf", syscall(SYS_bpf, 0, nullptr, 0));
    if (c == "unshare") return call("unshare", unshare(CLONE_NEWUSER));
    if (c == "mount") return call("mount", mount("none", "/mnt", "tmpfs", 0, nullptr));
    if (c == "umount") return call("umount", umount2(a, MNT_DETACH));
    if (c == "truncate") return call("truncate", truncate(a, 0));
    if (c == "create-setuid") return call("create-setuid", open(a, O_WRONLY | O_CREAT | O_EXCL, 04755));
    if (c == "exchange") return exchange_for(a, b, argc > 4 ? argv[4] : "", argc > 5 ? atoi(argv[5]) : 1);
    if (c == "setxattr") return call("setxattr", setxattr(a, "user.oms-test", "1", 1, 0));
    if (c == "bind-tcp" || c == "bind-udp") {
        int fd = socket(AF_INET, c == "bind-tcp" ? SOCK_STREAM : SOCK_DGRAM, 0);
        sockaddr_in address{};
        address.sin_family = AF_INET;
        address.sin_port = htons(atoi(a));
        address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        return call("bind", bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address));
    }
    return 2;
}
