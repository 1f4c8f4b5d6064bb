#include "cli_process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace oms::docker {

namespace {

std::vector<char*> c_strings(const std::vector<std::string>& items) {
    std::vector<char*> out;
    for (const std::string& s : items) out.push_back(const_cast<char*>(s.c_str()));
    out.push_back(nullptr);
    return out;
}

void drain(int out_fd, int err_fd, std::string& out, std::string& err) {
    pollfd fds[2] = {{out_fd, POLLIN, 0}, {err_fd, POLLIN, 0}};
    char buf[8192];
    while (fds[0].fd >= 0 || fds[1].fd >= 0) {
        if (poll(fds, 2, -1) < 0) {
            if (errno == EINTR) continue;
            return;
        }
        for (int i = 0; i < 2; ++i) {
            if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
            ssize_t n = read(fds[i].fd, buf, sizeof buf);
            if (n > 0) (i == 0 ? out : err).append(buf, static_cast<size_t>(n));
            else if (n == 0 || errno != EINTR) fds[i].fd = -1;
        }
    }
}

}  // namespace

std::string find_program(const std::string& program, const std::string& path_list) {
    if (program.find('/') != std::string::npos) return access(program.c_str(), X_OK) == 0 ? program : "";
    size_t start = 0;
    while (start <= path_list.size()) {
        size_t end = path_list.find(':', start);
        if (end == std::string::npos) end = path_list.size();
        std::string dir = path_list.substr(start, end - start);
        if (!dir.empty() && dir[0] == '/') {
            std::string candidate = dir + "/" + program;
            if (access(candidate.c_str(), X_OK) == 0) return candidate;
        }
        start = end + 1;
    }
    return "";
}

pid_t spawn_process(const std::vector<std::string>& argv, const std::vector<std::string>& env, int in, int out,
                    int err) {
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, in, 0);
    posix_spawn_file_actions_adddup2(&actions, out, 1);
    posix_spawn_file_actions_adddup2(&actions, err, 2);
    posix_spawnattr_t attributes;
    posix_spawnattr_init(&attributes);
    sigset_t none, all;
    sigemptyset(&none);
    sigfillset(&all);
    posix_spawnattr_setsigmask(&attributes, &none);
    posix_spawnattr_setsigdefault(&attributes, &all);
    posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    auto args = c_strings(argv);
    auto environment = c_strings(env);
    pid_t pid = -1;
    int rc = posix_spawn(&pid, argv[0].c_str(), &actions, &attributes, args.data(), environment.data());
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attributes);
    if (rc != 0) throw std::runtime_error("cannot start " + argv[0] + ": " + std::strerror(rc));
    return pid;
}

int wait_process(pid_t pid) {
    int status = 0;
    while (waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR) return 255;
    }
    if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
    return WEXITSTATUS(status);
}

CliResult run_captured(const std::vector<std::string>& argv, const std::vector<std::string>& env) {
    int out_pipe[2], err_pipe[2];
    if (pipe2(out_pipe, O_CLOEXEC) != 0) throw std::runtime_error("pipe failed");
    if (pipe2(err_pipe, O_CLOEXEC) != 0) {
        close(out_pipe[0]), close(out_pipe[1]);
        throw std::runtime_error("pipe failed");
    }
    int null_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
    CliResult result;
    pid_t pid = -1;
    try {
        pid = spawn_process(argv, env, null_fd, out_pipe[1], err_pipe[1]);
    } catch (...) {
        for (int fd : {out_pipe[0], out_pipe[1], err_pipe[0], err_pipe[1], null_fd}) close(fd);
        throw;
    }
    for (int fd : {out_pipe[1], err_pipe[1], null_fd}) close(fd);
    drain(out_pipe[0], err_pipe[0], result.out, result.err);
    close(out_pipe[0]), close(err_pipe[0]);
    result.exit_code = wait_process(pid);
    return result;
}

}  // namespace oms::docker
