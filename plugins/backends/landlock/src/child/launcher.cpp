#include "launcher.hpp"

#include "child_steps.hpp"
#include "descriptor_passing.hpp"
#include "host_listener_check.hpp"
#include <oms/scoped_fd.hpp>

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
#include <mutex>
#include <optional>
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

// The exit code the init writes on ChildSpec::end_fd; nullopt at EOF
// without one.
std::optional<int> told_exit_code(int fd) {
    int code = 0;
    size_t got = 0;
    while (got < sizeof code) {
        const ssize_t n = read(fd, reinterpret_cast<char*>(&code) + got, sizeof code - got);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return std::nullopt;
        got += static_cast<size_t>(n);
    }
    return code;
}

// Inits that said their run is over and end by themselves in a moment, with
// nothing of the run left. Each is reaped when it has ended: at the next
// run's launch, or at the latest when the process exits (a wait then, so
// that oms never hands an init's zombie to its own parent, which may be a
// subreaper waiting only for the children it knows).
class EndingInits {
public:
    void add(pid_t pid) {
        std::lock_guard<std::mutex> lock(mutex_);
        pids_.push_back(pid);
        reap(WNOHANG);
    }
    void reap_ended() {
        std::lock_guard<std::mutex> lock(mutex_);
        reap(WNOHANG);
    }
    ~EndingInits() { reap(0); }  // at exit: it ends within its own exit

private:
    void reap(int options) {
        pids_.erase(std::remove_if(pids_.begin(), pids_.end(),
                                   [options](pid_t p) {
                                       pid_t done;
                                       while ((done = waitpid(p, nullptr, options)) < 0 && errno == EINTR) {
                                       }
                                       return done == p || (done < 0 && errno == ECHILD);
                                   }),
                    pids_.end());
    }
    std::mutex mutex_;
    std::vector<pid_t> pids_;
};

EndingInits& ending_inits() {
    static EndingInits inits;  // destroyed at exit, after the runs
    return inits;
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

// The child's first message when ChildSpec::tell_network_entered: 1 for its
// word that it is in its network, 0 when it ended without a word, -1 for
// any other message.
int wait_for_network_word(int channel) {
    char tag = 0;
    ssize_t got;
    do {
        got = receive_with_descriptors(channel, tag, nullptr, 0, 0);
    } while (got < 0 && errno == EINTR);
    if (got < 0) return 0;
    return tag == kNetworkEnteredTag ? 1 : -1;
}

int child_entry(void* spec) { run_child(*static_cast<const ChildSpec*>(spec)); }

pid_t clone_on_own_stack(int (*entry)(void*), int flags, void* argument) {
    constexpr size_t kStackSize = 256 * 1024;
    void* stack = mmap(nullptr, kStackSize, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
    if (stack == MAP_FAILED) return -1;
    pid_t pid = clone(entry, static_cast<char*>(stack) + kStackSize, flags, argument);
    int saved = errno;
    munmap(stack, kStackSize);  // the child has its own copy
    errno = saved;
    return pid;
}

// Starts the child as pid 1 of a new PID namespace (and, without root, in a
// new user namespace that owns it). It lives as the namespace's init for the
// whole run, so it cannot share our memory like a vfork would: it is a copy.
pid_t start_child(ChildSpec& spec) {
    int flags = spec.namespaces ? CLONE_NEWPID | (spec.need_user_namespace ? CLONE_NEWUSER : 0) | SIGCHLD : SIGCHLD;
    return clone_on_own_stack(child_entry, flags, &spec);
}

// The joining helper (a copy of oms, one thread): enters the task's user and
// network namespaces through the member init's pidfd, then starts the child
// as oms's own (CLONE_PARENT) in a new PID namespace of that user
// namespace, writes its pid (0: the task's namespaces could not be entered;
// -1: no child) and exits.
struct JoiningHelper {
    ChildSpec* spec;
    int pid_fd;  // where the child's pid goes
};

int joining_helper(void* data) {
    const auto& helper = *static_cast<JoiningHelper*>(data);
    ChildSpec& spec = *helper.spec;
    // Not handed down: its copy would keep the key locked (ChildSpec::task_lock_fd).
    if (spec.task_lock_fd >= 0) close(spec.task_lock_fd);
    spec.task_lock_fd = -1;
    pid_t pid = 0;
    if (setns(spec.join_pidfd, CLONE_NEWUSER | CLONE_NEWNET) == 0) {
        spec.network_entered = true;  // this copy's, which the child inherits
        pid = clone_on_own_stack(child_entry, CLONE_PARENT | CLONE_NEWPID | SIGCHLD, &spec);
        if (pid < 0) pid = -1;  // not the member's end: the start fails as any other
    }
    ssize_t ignored = write(helper.pid_fd, &pid, sizeof pid);
    (void)ignored;
    _exit(0);
}

// Without root, a task's network belongs to the user namespace of the run
// that made it, which only a process inside may enter, and a threaded oms
// cannot (setns of a user namespace wants one thread): a helper enters it
// and starts the child. Its pid comes through a pipe of its own; -1 when
// the helper could not start, 0 when the namespaces could not be entered.
pid_t start_child_in_task_user_namespace(ChildSpec& spec) {
    int pid_pipe[2];
    if (pipe2(pid_pipe, O_CLOEXEC) != 0) return -1;
    JoiningHelper helper_data{&spec, pid_pipe[1]};
    const pid_t helper = clone_on_own_stack(joining_helper, SIGCHLD, &helper_data);
    close(pid_pipe[1]);
    pid_t child = -1;
    if (helper > 0) {
        if (read(pid_pipe[0], &child, sizeof child) != static_cast<ssize_t>(sizeof child)) child = -1;
        wait_status(helper);
    }
    close(pid_pipe[0]);
    return child;
}

// The child, in the task's network when the run joins one (task_network.hpp);
// 0 when the member to join has ended since the look.
pid_t start_sandbox(ChildSpec& spec) {
    if (spec.join_pidfd >= 0 && spec.need_user_namespace && spec.namespaces)
        return start_child_in_task_user_namespace(spec);
    return start_child(spec);
}

}  // namespace

ConfinedRun::ConfinedRun(pid_t pid, sdk::ScopedFd end, std::unique_ptr<LoopbackRelay> relay)
    : pid_(pid), end_(std::move(end)), relay_(std::move(relay)) {}

ConfinedRun::~ConfinedRun() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (told_end_ && !reaped_) {
        ending_inits().add(pid_);
    } else if (!reaped_) {  // released without wait: never leave the command behind
        kill(pid_, SIGKILL);
        wait_status(pid_);
    }
}

void ConfinedRun::signal(int signal_number) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!reaped_ && !told_end_) kill(pid_, signal_number);
}

int ConfinedRun::wait() {
    if (code_) return *code_;  // waited for already
    // The init's word that the run is over: the command and everything it
    // left have ended and been reaped; only the init's own exit is left.
    if (std::optional<int> code = told_exit_code(end_.get())) {
        std::lock_guard<std::mutex> lock(mutex_);
        told_end_ = true;
        code_ = code;
        end_.reset();
        relay_.reset();
        network_.reset();
        return *code;
    }
    // No word (the init was killed, or failed): wait for the end without
    // reaping, so a concurrent signal() never targets a recycled pid; then
    // reap under the lock.
    siginfo_t info{};
    while (waitid(P_PID, static_cast<id_t>(pid_), &info, WEXITED | WNOWAIT) != 0 && errno == EINTR) {
    }
    int code;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        code = wait_status(pid_);
        reaped_ = true;
        code_ = code;
    }
    relay_.reset();
    network_.reset();
    return code;
}

void ConfinedRun::keep_member(std::unique_ptr<TaskNetwork> network) {
    // A member since the child's word as a rule (enroll does nothing then);
    // without the word, this enrolls what is left and lets the key's lock go,
    // which must not wait for the run's end.
    network->enroll(pid_);
    network_ = std::move(network);
}

std::unique_ptr<ConfinedRun> launch(ChildSpec& spec, const std::function<void(pid_t)>& network_entered) {
    ending_inits().reap_ended();
    int error_pipe[2];
    if (pipe2(error_pipe, O_CLOEXEC) != 0) throw Error(OMS_ERR_FAILED, "landlock: pipe failed");
    sdk::ScopedFd error_read(error_pipe[0]), error_write(error_pipe[1]);
    int channel[2] = {-1, -1};
    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, channel) != 0)
        throw Error(OMS_ERR_FAILED, "landlock: socketpair failed");
    sdk::ScopedFd channel_parent(channel[0]), channel_child(channel[1]);
    int end_pipe[2];
    if (pipe2(end_pipe, O_CLOEXEC) != 0) throw Error(OMS_ERR_FAILED, "landlock: pipe failed");
    sdk::ScopedFd end_read(end_pipe[0]), end_write(end_pipe[1]);
    spec.error_fd = error_write.get();
    spec.channel_fd = channel_child.get();
    spec.end_fd = end_write.get();
    // Opened here, by oms: the init inherits it, the command never does (CLOEXEC).
    sdk::ScopedFd report(spec.own_network ? oms::refusal_log::open_for_append(spec.refusal_log) : -1);
    spec.report_fd = report.get();
    // Asked before the start so that the command, from its first connect,
    // is refused where nothing listens on the host (loopback_relay.hpp).
    if (!spec.relay_ports.empty()) spec.relay_listen = host_ports_listening(spec.relay_ports);
    oms::published::Listeners published = oms::published::listen_for_published(spec.publish_ports, "landlock");

    pid_t pid = start_sandbox(spec);
    if (pid == 0) {
        published.close_all();
        throw LaunchFailure(std::string("landlock: the sandbox could not ") + kJoinStep, kJoinStep, ESRCH);
    }
    if (pid < 0) {
        const int error = errno;
        published.close_all();
        throw LaunchFailure(std::string("landlock: cannot start a process: ") + strerror(error), "", error);
    }

    error_write.reset();
    channel_child.reset();
    end_write.reset();
    if (spec.tell_network_entered && network_entered) {
        try {
            // Nothing at all: the child ended first, and its failure report follows.
            const int said = wait_for_network_word(channel_parent.get());
            if (said > 0) network_entered(pid);
            if (said < 0)
                throw Error(OMS_ERR_FAILED,
                            "landlock: the sandbox's first message was not the word that it is in its network");
        } catch (...) {
            published.close_all();
            kill(pid, SIGKILL);
            wait_status(pid);
            throw;
        }
    }
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
    return std::make_unique<ConfinedRun>(pid, std::move(end_read), std::move(relay));
}

}  // namespace oms::landlock
