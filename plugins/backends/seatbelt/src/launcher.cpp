#include "launcher.hpp"

#include <cerrno>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <mutex>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#if defined(__linux__)
#include <sys/syscall.h>
#endif

namespace oms::seatbelt {

namespace {

using oms::sdk::Error;

[[noreturn]] void fail(const std::string& what) {
    throw Error(OMS_ERR_FAILED, "seatbelt: " + what + ": " + std::strerror(errno));
}

// Writes the profile to a fresh 0600 file and returns its path.
std::string write_profile_file(const std::string& temp_dir, const std::string& text) {
    if (temp_dir.empty()) throw Error(OMS_ERR_INVALID, "seatbelt: the run has no temp folder for the profile");
    std::string path = temp_dir + "/oms-seatbelt-XXXXXX.sb";
    const int fd = ::mkstemps(path.data(), 3);
    if (fd < 0) fail("cannot create a profile file in " + temp_dir);
    size_t written = 0;
    while (written < text.size()) {
        const ssize_t n = ::write(fd, text.data() + written, text.size() - written);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            ::close(fd);
            ::unlink(path.c_str());
            fail("cannot write the profile file " + path);
        }
        written += static_cast<size_t>(n);
    }
    ::fchmod(fd, 0600);
    ::close(fd);
    return path;
}

std::vector<char*> c_strings(const std::vector<std::string>& items) {
    std::vector<char*> out;
    for (const auto& item : items) out.push_back(const_cast<char*>(item.c_str()));
    out.push_back(nullptr);
    return out;
}

// ------------------------------------------------- child side (async-signal-safe only)

[[noreturn]] void child_fail(int report_fd) {
    const int code = errno;
    (void)!::write(report_fd, &code, sizeof code);
    ::_exit(127);
}

// oms blocks and handles signals in its own threads; the command must start
// with the defaults, or it could not be interrupted.
void reset_signals() {
    struct sigaction defaults {};
    defaults.sa_handler = SIG_DFL;
    sigemptyset(&defaults.sa_mask);
    for (int sig = 1; sig < NSIG; ++sig) ::sigaction(sig, &defaults, nullptr);
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
}

// Moves the three descriptors out of the way first, so that e.g. out == 0
// is not clobbered by dup2(in, 0).
bool install_stdio(oms_stdio stdio) {
    const int wanted[3] = {stdio.in, stdio.out, stdio.err};
    int moved[3];
    for (int i = 0; i < 3; ++i)
        if ((moved[i] = ::fcntl(wanted[i], F_DUPFD, 10)) < 0) return false;
    for (int i = 0; i < 3; ++i)
        if (::dup2(moved[i], i) < 0) return false;
    return true;
}

// Nothing oms holds open (a state file, a socket) may leak into the command,
// except the close-on-exec pipe that reports a failed exec.
void close_other_descriptors(int keep) {
#if defined(__linux__) && defined(SYS_close_range)
    if (keep > 3) ::syscall(SYS_close_range, 3u, static_cast<unsigned>(keep - 1), 0u);
    if (::syscall(SYS_close_range, static_cast<unsigned>(keep + 1), ~0u, 0u) == 0) return;
#endif
    const long limit = ::sysconf(_SC_OPEN_MAX);
    for (int fd = 3; fd < (limit > 0 && limit < 65536 ? limit : 65536); ++fd)
        if (fd != keep) ::close(fd);
}

[[noreturn]] void run_child(const LaunchRequest& request, char* const* argv, char* const* envp, int report_fd) {
    reset_signals();
    if (!install_stdio(request.stdio)) child_fail(report_fd);
    close_other_descriptors(report_fd);
    if (::chdir(request.cwd.c_str()) != 0) child_fail(report_fd);
    ::execve(request.sandbox_exec.c_str(), argv, envp);
    child_fail(report_fd);
}

// ------------------------------------------------- the running command

class SeatbeltRun final : public oms::sdk::Run {
public:
    SeatbeltRun(pid_t pid, std::string profile_file) : pid_(pid), profile_file_(std::move(profile_file)) {}

    // Released without a finished wait: the command must not outlive its run.
    // Never throws (a destructor that threw would end oms).
    ~SeatbeltRun() override {
        std::lock_guard<std::mutex> lock(mutex_);
        if (!reaped_) {
            ::kill(pid_, SIGKILL);
            int status = 0;
            while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
            }
        }
        ::unlink(profile_file_.c_str());
    }

    void signal(int signal_number) override {
        std::lock_guard<std::mutex> lock(mutex_);
        if (!reaped_) ::kill(pid_, signal_number);
    }

    int wait() override {
        // Wait without reaping first: until the pid is reaped it cannot be
        // reused, so a concurrent signal() never reaches another process.
        siginfo_t info{};
        while (::waitid(P_PID, static_cast<id_t>(pid_), &info, WEXITED | WNOWAIT) != 0)
            if (errno != EINTR) fail("waiting for the command failed");
        std::lock_guard<std::mutex> lock(mutex_);
        return reap_locked();
    }

private:
    int reap_locked() {
        int status = 0;
        while (::waitpid(pid_, &status, 0) < 0)
            if (errno != EINTR) fail("waiting for the command failed");
        reaped_ = true;
        if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
        return WEXITSTATUS(status);
    }

    pid_t pid_;
    std::string profile_file_;
    std::mutex mutex_;
    bool reaped_ = false;
};

// Reads the child's exec outcome: nothing (exec worked) or its errno.
void check_exec_outcome(int report_fd, pid_t pid, const LaunchRequest& request) {
    int code = 0;
    ssize_t n;
    while ((n = ::read(report_fd, &code, sizeof code)) < 0 && errno == EINTR) {
    }
    ::close(report_fd);
    if (n <= 0) return;
    int status = 0;
    ::waitpid(pid, &status, 0);
    errno = code;
    fail("cannot start " + request.sandbox_exec + " in " + request.cwd);
}

}  // namespace

std::vector<std::string> sandbox_exec_argv(const std::string& sandbox_exec, const std::string& profile_file,
                                           const std::vector<ProfileParameter>& parameters,
                                           const std::vector<std::string>& argv) {
    std::vector<std::string> out{sandbox_exec};
    for (const auto& parameter : parameters) {
        out.push_back("-D");
        out.push_back(parameter.name + "=" + parameter.value);
    }
    out.push_back("-f");
    out.push_back(profile_file);
    out.insert(out.end(), argv.begin(), argv.end());
    return out;
}

std::unique_ptr<oms::sdk::Run> launch(const LaunchRequest& request) {
    if (request.argv.empty()) throw Error(OMS_ERR_INVALID, "seatbelt: no command to run");
    // sandbox-exec would read a leading '-' as one of its own options.
    if (request.argv[0].empty() || request.argv[0][0] == '-')
        throw Error(OMS_ERR_INVALID, "seatbelt: the command name may not start with '-'");
    const std::string profile_file = write_profile_file(request.temp_dir, request.profile.text);
    const auto args = sandbox_exec_argv(request.sandbox_exec, profile_file, request.profile.parameters, request.argv);
    auto argv = c_strings(args);
    auto envp = c_strings(request.env);
    int report[2];
    if (::pipe(report) != 0 || ::fcntl(report[0], F_SETFD, FD_CLOEXEC) != 0 ||
        ::fcntl(report[1], F_SETFD, FD_CLOEXEC) != 0) {
        ::unlink(profile_file.c_str());
        fail("cannot create a pipe");
    }
    const pid_t pid = ::fork();
    if (pid == 0) run_child(request, argv.data(), envp.data(), report[1]);
    ::close(report[1]);
    if (pid < 0) {
        ::close(report[0]);
        ::unlink(profile_file.c_str());
        fail("cannot fork");
    }
    try {
        check_exec_outcome(report[0], pid, request);
    } catch (...) {
        ::unlink(profile_file.c_str());
        throw;
    }
    return std::make_unique<SeatbeltRun>(pid, profile_file);
}

}  // namespace oms::seatbelt
