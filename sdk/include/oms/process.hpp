// oms/process.hpp: header-only helper for backend authors (POSIX): start a
// child with exactly the policy's environment, in the worktree, with default
// signal handling and no inherited descriptors beyond 0/1/2 and the ones the
// backend names (a launcher's `--seccomp FD`), and report any
// failure before exec back to the parent, so a command that could not be
// confined never runs. Needs only the C++ standard library and POSIX.
#ifndef OMS_PROCESS_HPP
#define OMS_PROCESS_HPP

#include <oms/sdk.hpp>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

namespace oms::sdk {

// A descriptor the child keeps open: `source` in the parent becomes `target`
// in the child (the same number keeps it where it is). Source and target
// must be above 2 (stdio has its own field); the target is not close-on-exec
// in the child. At most 64.
struct KeptDescriptor {
    int source;
    int target;
};

// Where ChildProcess::signal sends a signal.
enum class SignalTarget {
    child,          // the direct child only (the command itself, when nothing wraps it)
    process_group,  // the child's own process group (ExecSpec::own_process_group is set
                    // for it): the command and everything it started, through a launcher
};

// What to execute. `program` is resolved on the PATH found in `env` when it
// has no slash.
struct ExecSpec {
    std::vector<std::string> argv;
    std::vector<std::string> env;  // "NAME=value", exactly what the child gets
    std::string cwd;
    oms_stdio stdio{0, 1, 2};
    // Linux: the child gets SIGKILL when the thread that started it ends, so
    // a command never outlives the oms watching it (its private HOME is
    // removed once that oms is gone). Start it from a thread that lives as
    // long as the command should. A `prepare` that changes a user or group
    // id clears it (the kernel's rule); set it again there if so.
    bool dies_with_parent = false;
    // Descriptors the child keeps besides 0/1/2 (everything else is closed
    // before exec), e.g. a seccomp program for `bwrap --seccomp 10`.
    std::vector<KeptDescriptor> keep_descriptors;
    // The child leads a process group of its own (set in parent and child, so
    // a signal sent right after start() already reaches the group).
    bool own_process_group = false;
    // Where signal() goes. process_group needs own_process_group.
    SignalTarget signal_target = SignalTarget::child;
};

// The first executable regular file named `name` on the PATH of `env`
// (empty PATH entries and relative ones are taken relative to `cwd`, the
// folder the command starts in, as a shell would); a name with a slash is
// taken as it is (relative to `cwd`). Throws Error when there is none, so a
// bare name can never fall through to a file in the current folder.
inline std::string find_program(const std::string& name, const std::vector<std::string>& env,
                                const std::string& cwd) {
    auto runnable = [](const std::string& path) {
        struct stat info;
        return stat(path.c_str(), &info) == 0 && S_ISREG(info.st_mode) && access(path.c_str(), X_OK) == 0;
    };
    auto anchored = [&cwd](const std::string& path) {
        return path.empty() || path[0] != '/' ? (cwd.empty() ? "." : cwd) + (path.empty() ? "" : "/" + path) : path;
    };
    if (name.find('/') != std::string::npos) return name;
    std::string path = "/usr/local/bin:/usr/bin:/bin";
    for (auto& entry : env)
        if (entry.rfind("PATH=", 0) == 0) path = entry.substr(5);
    size_t start = 0;
    while (!name.empty() && start <= path.size()) {
        size_t end = path.find(':', start);
        if (end == std::string::npos) end = path.size();
        std::string candidate = anchored(path.substr(start, end - start)) + "/" + name;
        if (runnable(candidate)) return candidate;
        start = end + 1;
    }
    throw Error(OMS_ERR_FAILED, "cannot execute " + name + ": command not found on the command's PATH");
}

namespace detail {

// Writes "errno:message" to the error pipe and exits; only used in the child.
[[noreturn]] inline void child_fail(int pipe_fd, int error_number, const std::string& message) {
    std::string text = std::to_string(error_number) + ":" + message;
    ssize_t ignored = write(pipe_fd, text.data(), text.size());
    (void)ignored;
    _exit(127);
}

inline void reset_signals() {
    sigset_t empty;
    sigemptyset(&empty);
    sigprocmask(SIG_SETMASK, &empty, nullptr);
    for (int s = 1; s < NSIG; ++s)
        if (s != SIGKILL && s != SIGSTOP) signal(s, SIG_DFL);
}

// Moves the three stdio descriptors into place even when they overlap 0..2.
inline bool install_stdio(oms_stdio stdio) {
    int wanted[3] = {stdio.in, stdio.out, stdio.err};
    int copies[3];
    for (int i = 0; i < 3; ++i) {
        copies[i] = fcntl(wanted[i], F_DUPFD_CLOEXEC, 3);
        if (copies[i] < 0) return false;
    }
    for (int i = 0; i < 3; ++i)
        if (dup2(copies[i], i) < 0) return false;
    return true;
}

// Moves every kept descriptor to its target even when sources and targets
// overlap (each is first copied above all of them), after moving the error
// pipe above them all (*error_fd is updated). Only used in the child, so it
// allocates nothing.
inline bool install_kept(const std::vector<KeptDescriptor>& kept, int* error_fd) {
    if (kept.empty()) return true;
    int floor = *error_fd + 1;
    for (auto& k : kept) {
        if (k.target <= 2 || k.source <= 2) {
            errno = EBADF;
            return false;
        }
        if (k.target >= floor) floor = k.target + 1;
        if (k.source >= floor) floor = k.source + 1;
    }
    // The error pipe must survive the moves: put it above every target.
    int moved_error = fcntl(*error_fd, F_DUPFD_CLOEXEC, floor);
    if (moved_error < 0) return false;
    *error_fd = moved_error;
    floor = moved_error + 1;
    int copies[64];
    if (kept.size() > 64) {
        errno = EMFILE;
        return false;
    }
    for (size_t i = 0; i < kept.size(); ++i) {
        copies[i] = fcntl(kept[i].source, F_DUPFD_CLOEXEC, floor);
        if (copies[i] < 0) return false;
        floor = copies[i] + 1;
    }
    for (size_t i = 0; i < kept.size(); ++i)
        if (dup2(copies[i], kept[i].target) < 0) return false;  // dup2 clears close-on-exec
    return true;
}

inline bool is_kept(const std::vector<KeptDescriptor>& kept, int fd) {
    for (auto& k : kept)
        if (k.target == fd) return true;
    return false;
}

// Closes everything above 2 except the kept targets and the error pipe
// (which is close-on-exec and so goes at exec).
inline void close_other_descriptors(int error_fd, const std::vector<KeptDescriptor>& kept) {
#ifdef SYS_close_range
    if (kept.empty()) {
        if (error_fd > 3) syscall(SYS_close_range, 3u, static_cast<unsigned>(error_fd - 1), 0u);
        if (syscall(SYS_close_range, static_cast<unsigned>(error_fd + 1), ~0u, 0u) == 0) return;
    } else {
        // Everything above the error pipe is a leftover copy or foreign.
        int lowest_free = error_fd + 1;
        for (int fd = 3; fd < error_fd; ++fd)
            if (!is_kept(kept, fd)) close(fd);
        if (syscall(SYS_close_range, static_cast<unsigned>(lowest_free), ~0u, 0u) == 0) return;
    }
#endif
    for (int fd = 3; fd < 65536; ++fd)
        if (fd != error_fd && !is_kept(kept, fd)) close(fd);
}

}  // namespace detail

// A started child. wait() returns its status (128+N for signal N); signal()
// may run on another thread meanwhile and goes where the spec's signal_target
// says (or to the pid named with signal_pid); the destructor kills and reaps
// a child (and its own process group) that was never waited for.
class ChildProcess : public Run {
public:
    // `prepare` runs in the child after fork, after stdio and cwd are set and
    // before exec (apply confinement there); throwing aborts the launch and
    // the message comes back to the caller as an Error.
    static std::unique_ptr<ChildProcess> start(const ExecSpec& spec,
                                               const std::function<void()>& prepare = {}) {
        std::vector<char*> argv, envp;
        for (auto& a : spec.argv) argv.push_back(const_cast<char*>(a.c_str()));
        argv.push_back(nullptr);
        for (auto& e : spec.env) envp.push_back(const_cast<char*>(e.c_str()));
        envp.push_back(nullptr);
        const std::string program = find_program(spec.argv.at(0), spec.env, spec.cwd);
        int error_pipe[2];
        if (pipe(error_pipe) != 0 || fcntl(error_pipe[0], F_SETFD, FD_CLOEXEC) != 0 ||
            fcntl(error_pipe[1], F_SETFD, FD_CLOEXEC) != 0)
            throw Error(OMS_ERR_FAILED, "pipe failed");
        const pid_t parent = getpid();
        pid_t pid = fork();
        if (pid < 0) throw Error(OMS_ERR_FAILED, std::string("fork failed: ") + std::strerror(errno));
        if (pid == 0) run_child(spec, parent, program, argv.data(), envp.data(), error_pipe[1], prepare);
        // Also here, so the group exists before start() returns (the child
        // may not have run yet); EACCES once it has exec'd means it is done.
        if (spec.own_process_group) setpgid(pid, pid);
        close(error_pipe[1]);
        std::string failure = read_all(error_pipe[0]);
        close(error_pipe[0]);
        auto child = std::unique_ptr<ChildProcess>(new ChildProcess(pid, spec.own_process_group,
                                                                    spec.signal_target));
        if (!failure.empty()) {
            child->wait();
            auto colon = failure.find(':');
            throw Error(OMS_ERR_FAILED, failure.substr(colon == std::string::npos ? 0 : colon + 1));
        }
        return child;
    }

    ~ChildProcess() override {
        std::lock_guard<std::mutex> lock(mutex_);
        if (!reaped_) {
            kill(own_group_ ? -pid_ : pid_, SIGKILL);
            reap_locked();
        }
    }

    // Safe against a concurrent wait(): until the pid is reaped it cannot be
    // reused, nor can the group id it leads, so the signal never reaches
    // another process.
    void signal(int signal_number) override {
        std::lock_guard<std::mutex> lock(mutex_);
        if (reaped_) return;
        if (named_pid_ > 0)
            kill(named_pid_, signal_number);
        else if (target_ == SignalTarget::process_group && own_group_)
            kill(-pid_, signal_number);
        else
            kill(pid_, signal_number);
    }

    // Sends later signals to `pid` instead (a launcher reported where the
    // real command runs, e.g. bwrap's --info-fd "child-pid"). The backend
    // answers for that pid's lifetime: name only a process that cannot be
    // reaped while the direct child lives (its own child, which it reaps
    // just before it exits), since after that the number may be reused.
    // 0 goes back to the spec's target.
    void signal_pid(pid_t pid) {
        std::lock_guard<std::mutex> lock(mutex_);
        named_pid_ = pid;
    }

    int wait() override {
        // Wait without reaping first (WNOWAIT), then reap under the lock that
        // signal() takes.
        siginfo_t info{};
        while (waitid(P_PID, static_cast<id_t>(pid_), &info, WEXITED | WNOWAIT) != 0 && errno == EINTR) {
        }
        std::lock_guard<std::mutex> lock(mutex_);
        return reap_locked();
    }

    pid_t pid() const { return pid_; }

private:
    ChildProcess(pid_t pid, bool own_group, SignalTarget target) : pid_(pid), own_group_(own_group), target_(target) {}

    int reap_locked() {
        if (reaped_) return status_;
        int raw = 0;
        while (waitpid(pid_, &raw, 0) < 0 && errno == EINTR) {
        }
        reaped_ = true;
        status_ = WIFEXITED(raw) ? WEXITSTATUS(raw) : 128 + WTERMSIG(raw);
        return status_;
    }

    [[noreturn]] static void run_child(const ExecSpec& spec, pid_t parent, const std::string& program, char** argv,
                                       char** envp, int error_fd, const std::function<void()>& prepare) {
#ifdef __linux__
        if (spec.dies_with_parent) {
            prctl(PR_SET_PDEATHSIG, SIGKILL);
            if (getppid() != parent) _exit(128 + SIGKILL);  // it ended before the line above
        }
#else
        (void)parent;
#endif
        if (spec.own_process_group && setpgid(0, 0) != 0)
            detail::child_fail(error_fd, errno, std::string("cannot start a process group: ") + std::strerror(errno));
        detail::reset_signals();
        if (!detail::install_stdio(spec.stdio)) detail::child_fail(error_fd, errno, "cannot set up stdio");
        if (!detail::install_kept(spec.keep_descriptors, &error_fd))
            detail::child_fail(error_fd, errno, std::string("cannot keep a descriptor: ") + std::strerror(errno));
        if (!spec.cwd.empty() && chdir(spec.cwd.c_str()) != 0)
            detail::child_fail(error_fd, errno, "cannot enter " + spec.cwd + ": " + std::strerror(errno));
        if (prepare) {
            try {
                prepare();
            } catch (const std::exception& e) {
                detail::child_fail(error_fd, 0, e.what());
            } catch (...) {
                detail::child_fail(error_fd, 0, "confinement failed");
            }
        }
        detail::close_other_descriptors(error_fd, spec.keep_descriptors);
        execve(program.c_str(), argv, envp);
        detail::child_fail(error_fd, errno, "cannot execute " + program + ": " + std::strerror(errno));
    }

    static std::string read_all(int fd) {
        std::string out;
        char buffer[512];
        ssize_t n;
        while ((n = read(fd, buffer, sizeof buffer)) != 0) {
            if (n < 0 && errno == EINTR) continue;
            if (n < 0) break;
            out.append(buffer, static_cast<size_t>(n));
        }
        return out;
    }

    pid_t pid_;
    bool own_group_;
    SignalTarget target_;
    pid_t named_pid_ = 0;
    std::mutex mutex_;
    bool reaped_ = false;
    int status_ = -1;
};

}  // namespace oms::sdk

#endif  // OMS_PROCESS_HPP
