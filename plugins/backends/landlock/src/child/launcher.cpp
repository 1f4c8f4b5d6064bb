#include "launcher.hpp"

#include "descriptor_passing.hpp"
#include "host_listener_check.hpp"
#include "scoped_fd.hpp"

#include <oms/refusal_log.hpp>

#include <errno.h>
#include <netinet/in.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

namespace oms::landlock {

namespace {

using oms::sdk::Error;

int wait_status(pid_t pid) {
    int status = 0;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR) return 128 + SIGKILL;
    if (WIFEXITED(status)) return WEXITSTATUS(status);
    if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
    return 1;
}

// Reads the child's failure report; returns false at EOF (exec succeeded).
bool read_failure(int fd, ChildFailure& failure) {
    size_t got = 0;
    auto* bytes = reinterpret_cast<char*>(&failure);
    while (got < sizeof failure) {
        ssize_t n = read(fd, bytes + got, sizeof failure - got);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        got += static_cast<size_t>(n);
    }
    return got > 0;
}

std::vector<int> receive_listeners(int channel, size_t expected) {
    std::vector<int> fds;
    if (expected == 0) return fds;
    if (expected > kMaxPassedDescriptors)
        throw Error(OMS_ERR_FAILED, "landlock: more relay sockets than one message carries");
    char tag = 0;
    fds.resize(expected);
    const ssize_t got = receive_with_descriptors(channel, tag, fds.data(), expected, MSG_DONTWAIT);
    if (got < 0) throw Error(OMS_ERR_FAILED, "landlock: the sandbox did not hand over its relay sockets");
    fds.resize(std::min(static_cast<size_t>(got), expected));
    if (tag != kListenersTag || static_cast<size_t>(got) != expected) {
        for (int fd : fds) close(fd);
        throw Error(OMS_ERR_FAILED, "landlock: wrong number of relay sockets from the sandbox");
    }
    return fds;
}

// The host's listening sockets of the published ports, and the port of each.
struct PublishedListeners {
    std::vector<int> fds;
    std::vector<uint16_t> ports;
    void close_all() {
        for (int fd : fds) close(fd);
        fds.clear();
    }
};

[[noreturn]] void refuse_publishing(PublishedListeners& made, uint16_t port, const std::string& where, int error) {
    made.close_all();
    throw Error(OMS_ERR_UNAVAILABLE, "landlock: cannot publish port " + std::to_string(port) + ": the host's " + where +
                                         " " +
                                         (error == EADDRINUSE ? "is in use by another program"
                                                              : std::string("cannot listen: ") + strerror(error)) +
                                         "; nothing ran");
}

// Listens on `address` (127.0.0.1 or ::1, port set); the errno when it cannot.
int listen_on(const sockaddr* address, socklen_t size, int& error) {
    const int fd = socket(address->sa_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    const int on = 1;
    if (fd >= 0 && setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on) == 0 &&
        (address->sa_family != AF_INET6 || setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &on, sizeof on) == 0) &&
        bind(fd, address, size) == 0 && listen(fd, 128) == 0)
        return fd;
    error = errno;
    if (fd >= 0) close(fd);
    return -1;
}

// The host's 127.0.0.1:<port> and [::1]:<port> for each published port,
// listening; the second is skipped only where the host has no IPv6 loopback
// (a program on [::1]:<port> would otherwise take the browsers that try
// "localhost" there first). Made before the child starts, so a port the host
// already uses refuses the run with nothing run. SO_REUSEADDR, as servers
// bind: a port left in TIME_WAIT by the last run is free again, one another
// program listens on is not, and the relay never stops listening on them
// (loopback_relay.hpp), so no other program's bind gets in between.
PublishedListeners listen_for_published(const std::vector<uint16_t>& ports) {
    PublishedListeners made;
    for (uint16_t port : ports) {
        int error = 0;
        sockaddr_in v4{};
        v4.sin_family = AF_INET;
        v4.sin_port = htons(port);
        v4.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        const int fd4 = listen_on(reinterpret_cast<sockaddr*>(&v4), sizeof v4, error);
        if (fd4 < 0) refuse_publishing(made, port, "127.0.0.1:" + std::to_string(port), error);
        made.fds.push_back(fd4);
        made.ports.push_back(port);
        sockaddr_in6 v6{};
        v6.sin6_family = AF_INET6;
        v6.sin6_port = htons(port);
        v6.sin6_addr = in6addr_loopback;
        const int fd6 = listen_on(reinterpret_cast<sockaddr*>(&v6), sizeof v6, error);
        if (fd6 >= 0) {
            made.fds.push_back(fd6);
            made.ports.push_back(port);
        } else if (error != EAFNOSUPPORT && error != EADDRNOTAVAIL) {
            refuse_publishing(made, port, "[::1]:" + std::to_string(port), error);
        }
    }
    return made;
}

int child_entry(void* spec) { run_child(*static_cast<const ChildSpec*>(spec)); }

// Starts the child as pid 1 of a new PID namespace (and, without root, in a
// new user namespace that owns it). It lives as the namespace's init for the
// whole run, so it cannot share our memory like a vfork would: it is a copy.
pid_t start_child(const ChildSpec& spec) {
    constexpr size_t kStackSize = 256 * 1024;
    void* stack = mmap(nullptr, kStackSize, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
    if (stack == MAP_FAILED) return -1;
    int flags = spec.namespaces ? CLONE_NEWPID | (spec.need_user_namespace ? CLONE_NEWUSER : 0) | SIGCHLD : SIGCHLD;
    pid_t pid = clone(child_entry, static_cast<char*>(stack) + kStackSize, flags, const_cast<ChildSpec*>(&spec));
    int saved = errno;
    munmap(stack, kStackSize);  // the child has its own copy
    errno = saved;
    return pid;
}

}  // namespace

ConfinedRun::ConfinedRun(pid_t pid, std::unique_ptr<LoopbackRelay> relay) : pid_(pid), relay_(std::move(relay)) {}

ConfinedRun::~ConfinedRun() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!reaped_) {  // released without wait: never leave the command behind
        kill(pid_, SIGKILL);
        wait_status(pid_);
    }
}

void ConfinedRun::signal(int signal_number) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!reaped_) kill(pid_, signal_number);
}

int ConfinedRun::wait() {
    // Wait for the end without reaping, so a concurrent signal() never
    // targets a recycled pid; then reap under the lock.
    siginfo_t info{};
    while (waitid(P_PID, static_cast<id_t>(pid_), &info, WEXITED | WNOWAIT) != 0 && errno == EINTR) {
    }
    int code;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        code = wait_status(pid_);
        reaped_ = true;
    }
    relay_.reset();
    return code;
}

std::unique_ptr<ConfinedRun> launch(ChildSpec& spec) {
    int error_pipe[2];
    if (pipe2(error_pipe, O_CLOEXEC) != 0) throw Error(OMS_ERR_FAILED, "landlock: pipe failed");
    ScopedFd error_read(error_pipe[0]), error_write(error_pipe[1]);
    int channel[2] = {-1, -1};
    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, channel) != 0)
        throw Error(OMS_ERR_FAILED, "landlock: socketpair failed");
    ScopedFd channel_parent(channel[0]), channel_child(channel[1]);
    spec.error_fd = error_write.get();
    spec.channel_fd = channel_child.get();
    // Opened here, by oms: the init inherits it, the command never does (CLOEXEC).
    ScopedFd report(spec.own_network ? oms::refusal_log::open_for_append(spec.refusal_log) : -1);
    spec.report_fd = report.get();
    // Asked before the start so that the command, from its first connect,
    // is refused where nothing listens on the host (loopback_relay.hpp).
    if (!spec.relay_ports.empty()) spec.relay_listen = host_ports_listening(spec.relay_ports);
    PublishedListeners published = listen_for_published(spec.publish_ports);

    pid_t pid = start_child(spec);
    if (pid < 0) {
        const int error = errno;
        published.close_all();
        throw LaunchFailure(std::string("landlock: cannot start a process: ") + strerror(error), "", error);
    }

    error_write.reset();
    channel_child.reset();
    ChildFailure failure{};
    if (read_failure(error_read.get(), failure)) {
        wait_status(pid);
        published.close_all();
        failure.step[sizeof failure.step - 1] = '\0';
        throw LaunchFailure(std::string("landlock: the sandbox could not ") + failure.step + ": " +
                                strerror(failure.error_number) + " (the command did not run)",
                            failure.step, failure.error_number);
    }
    std::unique_ptr<LoopbackRelay> relay;
    try {
        std::vector<int> relayed = receive_listeners(channel_parent.get(), spec.relay_ports.size());
        // The relay owns them from here, the channel too when ports are
        // published (the init answers on it for the whole run).
        if (!published.fds.empty())
            relay = std::make_unique<LoopbackRelay>(std::move(relayed), spec.relay_ports,
                                                    std::exchange(published.fds, {}), published.ports,
                                                    channel_parent.release());
        else if (!spec.relay_ports.empty())
            relay = std::make_unique<LoopbackRelay>(std::move(relayed), spec.relay_ports);
    } catch (...) {
        published.close_all();
        kill(pid, SIGKILL);
        wait_status(pid);
        throw;
    }
    return std::make_unique<ConfinedRun>(pid, std::move(relay));
}

}  // namespace oms::landlock
