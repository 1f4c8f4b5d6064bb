#include "process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

extern char** environ;

namespace oms::test {

namespace {

// Small inputs only: tests write a line or two. A child that ends before it
// reads them (`sh -c 'exit 7'`) makes the write fail with EPIPE; the
// SIGPIPE that comes with it, sent to this thread, is blocked and taken
// here, or it would end the whole test program.
void write_input(int fd, const std::string& text) {
    sigset_t pipe_signal, previous;
    sigemptyset(&pipe_signal);
    sigaddset(&pipe_signal, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_signal, &previous);
    ssize_t ignored = write(fd, text.data(), text.size());
    (void)ignored;
    const timespec no_wait{0, 0};
    while (sigtimedwait(&pipe_signal, nullptr, &no_wait) > 0) {
    }
    pthread_sigmask(SIG_SETMASK, &previous, nullptr);
}

std::vector<char*> c_list(const std::vector<std::string>& items) {
    std::vector<char*> out;
    for (auto& s : items) out.push_back(const_cast<char*>(s.c_str()));
    out.push_back(nullptr);
    return out;
}

// Drain both pipes until they close or the deadline passes.
bool drain(int out_fd, int err_fd, std::string& out, std::string& err, int timeout_seconds) {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_seconds);
    pollfd fds[2] = {{out_fd, POLLIN, 0}, {err_fd, POLLIN, 0}};
    int open_count = 2;
    char buffer[65536];
    while (open_count > 0) {
        auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
        if (left.count() <= 0) return false;
        if (poll(fds, 2, static_cast<int>(left.count())) < 0) continue;
        for (int i = 0; i < 2; ++i) {
            if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
            ssize_t n = read(fds[i].fd, buffer, sizeof buffer);
            if (n > 0) {
                (i == 0 ? out : err).append(buffer, static_cast<size_t>(n));
            } else {
                close(fds[i].fd);
                fds[i].fd = -1;
                --open_count;
            }
        }
    }
    return true;
}

}  // namespace

ProcessResult run_process(const std::vector<std::string>& argv, const ProcessOptions& options) {
    int out_pipe[2], err_pipe[2], in_pipe[2];
    if (pipe2(out_pipe, O_CLOEXEC) || pipe2(err_pipe, O_CLOEXEC) || pipe2(in_pipe, O_CLOEXEC))
        throw std::runtime_error("pipe failed");
    auto args = c_list(argv);
    const std::vector<std::string> env = options.env.empty() ? options.env : with_sanitizer_options(options.env);
    auto env_list = c_list(env);
    pid_t pid = fork();
    if (pid < 0) throw std::runtime_error("fork failed");
    if (pid == 0) {
        dup2(in_pipe[0], 0);
        if (!options.stdin_text) {
            int null_fd = open("/dev/null", O_RDONLY);
            dup2(null_fd, 0);
        }
        dup2(out_pipe[1], 1);
        dup2(err_pipe[1], 2);
        setpgid(0, 0);
        if (!options.cwd.empty() && chdir(options.cwd.c_str()) != 0) _exit(126);
        char** envp = env.empty() ? environ : env_list.data();
        execve(args[0], args.data(), envp);
        _exit(127);
    }
    close(out_pipe[1]);
    close(err_pipe[1]);
    close(in_pipe[0]);
    if (options.stdin_text) write_input(in_pipe[1], *options.stdin_text);
    close(in_pipe[1]);
    ProcessResult result;
    bool finished = drain(out_pipe[0], err_pipe[0], result.out, result.err, options.timeout_seconds);
    if (!finished) {
        kill(-pid, SIGKILL);
        kill(pid, SIGKILL);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    if (!finished) result.exit_code = 128 + SIGKILL;
    return result;
}

std::string oms_binary() {
    const char* bin = std::getenv("OMS_BIN");
    if (!bin) throw std::runtime_error("OMS_BIN is not set (run the tests through ctest)");
    return bin;
}

std::vector<std::string> environment_with(const std::map<std::string, std::string>& overrides) {
    std::vector<std::string> out;
    for (char** e = environ; *e; ++e) {
        std::string entry(*e);
        auto eq = entry.find('=');
        if (eq != std::string::npos && overrides.count(entry.substr(0, eq))) continue;
        out.push_back(entry);
    }
    for (auto& [name, value] : overrides) out.push_back(name + "=" + value);
    return out;
}

std::vector<std::string> with_sanitizer_options(std::vector<std::string> env) {
    for (const char* name : {"ASAN_OPTIONS", "UBSAN_OPTIONS", "LSAN_OPTIONS"}) {
        const char* value = std::getenv(name);
        if (!value) continue;
        const std::string prefix = std::string(name) + "=";
        bool set = false;
        for (const std::string& entry : env) set = set || entry.compare(0, prefix.size(), prefix) == 0;
        if (!set) env.push_back(prefix + value);
    }
    return env;
}

}  // namespace oms::test
