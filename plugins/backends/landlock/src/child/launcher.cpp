#include "launcher.hpp"

#include "descriptor_passing.hpp"
#include "host_listener_check.hpp"
#include "scoped_fd.hpp"

#include <oms/published_listeners.hpp>
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
    oms::published::Listeners published = oms::published::listen_for_published(spec.publish_ports, "landlock");

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
