#include "oms/core/oms_child.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace oms::core {

namespace {

using Clock = std::chrono::steady_clock;

// How long a child has between SIGTERM and SIGKILL: oms run needs a moment
// to end the command and remove its run folder.
constexpr auto kKillGrace = std::chrono::seconds(5);
// After the child ended, how long output may still arrive from processes it
// left holding its pipes (none under landlock: its PID namespace ends with it).
constexpr auto kOutputGrace = std::chrono::seconds(2);
constexpr int kPollMilliseconds = 100;

struct Pipe {
    int read = -1, write = -1;
    Pipe() {
        int fds[2];
        if (pipe2(fds, O_CLOEXEC) != 0) throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
        read = fds[0];
        write = fds[1];
    }
    ~Pipe() {
        if (read >= 0) close(read);
        if (write >= 0) close(write);
    }
    void close_write() {
        close(write);
        write = -1;
    }
};

// Only async-signal-safe calls between fork and exec: this process has threads.
[[noreturn]] void exec_child(char* const* argv, const char* cwd, int null_fd, int out_fd, int err_fd, pid_t parent) {
    setpgid(0, 0);
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (getppid() != parent) _exit(127);  // the parent is already gone
    signal(SIGPIPE, SIG_DFL);              // the server ignores it; an exec would keep that
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    if (dup2(null_fd, 0) < 0 || dup2(out_fd, 1) < 0 || dup2(err_fd, 2) < 0) _exit(127);
    static const char kNoFolder[] = "oms mcp: cannot enter the worktree\n";
    if (chdir(cwd) != 0) {
        ssize_t ignored = write(2, kNoFolder, sizeof kNoFolder - 1);
        (void)ignored;
        _exit(127);
    }
    execv(argv[0], argv);
    static const char kNoExec[] = "oms mcp: cannot run its own binary\n";
    ssize_t ignored = write(2, kNoExec, sizeof kNoExec - 1);
    (void)ignored;
    _exit(127);
}

pid_t start_child(const ChildRequest& request, int out_fd, int err_fd) {
    std::vector<char*> argv;
    for (const std::string& word : request.argv) argv.push_back(const_cast<char*>(word.c_str()));
    argv.push_back(nullptr);
    const int null_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (null_fd < 0) throw std::runtime_error(std::string("/dev/null: ") + std::strerror(errno));
    const pid_t parent = getpid();
    const pid_t pid = fork();
    if (pid == 0) exec_child(argv.data(), request.cwd.c_str(), null_fd, out_fd, err_fd, parent);
    const int fork_error = errno;
    close(null_fd);
    if (pid < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(fork_error));
    setpgid(pid, pid);  // also here, so a signal to the group cannot come before the child made it
    return pid;
}

int exit_code_of(int status) {
    if (WIFEXITED(status)) return WEXITSTATUS(status);
    if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
    return 1;
}

// Whether the child has ended, without reaping it: its pid (and so its
// process group's id) stays taken until waitpid, so a kill of the group
// never reaches a stranger.
bool has_ended(pid_t pid) {
    siginfo_t info{};
    return waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info.si_pid == pid;
}

// Reads what is ready on the open pipes; marks a pipe closed (-1) at its end.
void read_ready(pollfd (&fds)[2], ChildResult& result) {
    if (poll(fds, 2, kPollMilliseconds) <= 0) return;
    char buffer[65536];
    for (int i = 0; i < 2; ++i) {
        if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
        const ssize_t n = read(fds[i].fd, buffer, sizeof buffer);
        if (n > 0)
            (i == 0 ? result.out : result.err).append(std::string_view(buffer, static_cast<size_t>(n)));
        else if (n == 0 || errno != EINTR)
            fds[i].fd = -1;
    }
}

// Ends a child that must stop: SIGTERM to it (oms run passes it on to the
// command and cleans up), then SIGKILL to its whole group if it is still
// there after the grace.
class Stopper {
public:
    explicit Stopper(pid_t pid) : pid_(pid) {}
    bool stopping() const { return stopping_; }
    // Called on every turn while the child runs.
    void stop(Clock::time_point now) {
        if (!stopping_) {
            kill(pid_, SIGTERM);
            stopping_ = true;
            since_ = now;
        } else if (now - since_ > kKillGrace) {
            kill(-pid_, SIGKILL);
        }
    }
    // Once the child ended (not yet reaped): a stopped run leaves nothing of its group behind.
    void clear_group() const {
        if (stopping_) kill(-pid_, SIGKILL);
    }

private:
    pid_t pid_;
    bool stopping_ = false;
    Clock::time_point since_;  // when SIGTERM went out
};

}  // namespace

ChildResult run_oms_child(const ChildRequest& request, const std::atomic<bool>& cancel, const ChildProgress& progress) {
    Pipe out, err;
    const pid_t pid = start_child(request, out.write, err.write);
    out.close_write();
    err.close_write();
    ChildResult result{-1, BoundedText(request.output_limit), BoundedText(request.output_limit), false, false};
    pollfd fds[2] = {{out.read, POLLIN, 0}, {err.read, POLLIN, 0}};
    const Clock::time_point start = Clock::now();
    Clock::time_point next_tick = start + progress.interval;
    Stopper stopper(pid);
    std::optional<Clock::time_point> ended;
    for (;;) {
        const Clock::time_point now = Clock::now();
        if (!ended && has_ended(pid)) {
            ended = now;
            stopper.clear_group();
        }
        const bool pipes_open = fds[0].fd >= 0 || fds[1].fd >= 0;
        if (ended && (!pipes_open || now - *ended > kOutputGrace)) break;
        if (!ended) {
            const bool timed_out = request.timeout && now - start >= *request.timeout;
            if (!stopper.stopping() && (cancel.load() || timed_out)) {
                result.cancelled = cancel.load();
                result.timed_out = !result.cancelled;
            }
            if (result.cancelled || result.timed_out) stopper.stop(now);
            if (progress.tick && now >= next_tick) {
                progress.tick(std::chrono::duration_cast<std::chrono::milliseconds>(now - start));
                next_tick += progress.interval;
            }
        }
        if (pipes_open)
            read_ready(fds, result);
        else
            poll(nullptr, 0, kPollMilliseconds);
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    result.exit_code = exit_code_of(status);
    return result;
}

}  // namespace oms::core
