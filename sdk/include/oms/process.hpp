// oms/process.hpp: header-only helper for backend authors (POSIX): start a
// child with exactly the policy's environment, in the worktree, with default
// signal handling and no inherited descriptors beyond 0/1/2, and report any
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

inline void close_other_descriptors(int keep) {
#ifdef SYS_close_range
    // Everything above 2 except the error pipe (which is close-on-exec).
    if (keep > 3) syscall(SYS_close_range, 3u, static_cast<unsigned>(keep - 1), 0u);
    if (syscall(SYS_close_range, static_cast<unsigned>(keep + 1), ~0u, 0u) == 0) return;
#endif
    for (int fd = 3; fd < 65536; ++fd)
        if (fd != keep) close(fd);
}

}  // namespace detail

// A started child. wait() returns its status (128+N for signal N); signal()
// may run on another thread meanwhile; the destructor kills and reaps a child
// that was never waited for.
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
        close(error_pipe[1]);
        std::string failure = read_all(error_pipe[0]);
        close(error_pipe[0]);
        auto child = std::unique_ptr<ChildProcess>(new ChildProcess(pid));
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
            kill(pid_, SIGKILL);
            reap_locked();
        }
    }

    // Safe against a concurrent wait(): until the pid is reaped it cannot be
    // reused, so the signal never reaches another process.
    void signal(int signal_number) override {
        std::lock_guard<std::mutex> lock(mutex_);
        if (!reaped_) kill(pid_, signal_number);
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
    explicit ChildProcess(pid_t pid) : pid_(pid) {}

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
        detail::reset_signals();
        if (!detail::install_stdio(spec.stdio)) detail::child_fail(error_fd, errno, "cannot set up stdio");
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
        detail::close_other_descriptors(error_fd);
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
    std::mutex mutex_;
    bool reaped_ = false;
    int status_ = -1;
};

}  // namespace oms::sdk

#endif  // OMS_PROCESS_HPP
