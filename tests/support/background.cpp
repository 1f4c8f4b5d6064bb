#include "background.hpp"
#include "process.hpp"

#include <poll.h>
#include <pty.h>
#include <unistd.h>

#include <chrono>

namespace oms::test {

namespace {

// Everything execve needs, built before the fork: the child only calls
// chdir and execve.
class PreparedExec {
public:
    PreparedExec(const OmsEnv& env, const std::vector<std::string>& argv) : args_(argv), worktree_(env.worktree) {
        for (auto& [name, value] : env.env) entries_.push_back(name + "=" + value);
        entries_ = with_sanitizer_options(entries_);
        for (auto& a : args_) argv_.push_back(const_cast<char*>(a.c_str()));
        argv_.push_back(nullptr);
        for (auto& e : entries_) envp_.push_back(const_cast<char*>(e.c_str()));
        envp_.push_back(nullptr);
    }
    [[noreturn]] void exec() const {
        if (chdir(worktree_.c_str()) != 0) _exit(126);
        execve(argv_[0], argv_.data(), envp_.data());
        _exit(127);
    }

private:
    std::vector<std::string> args_, entries_;
    std::string worktree_;
    std::vector<char*> argv_, envp_;
};

}  // namespace

pid_t start_in_own_group(const OmsEnv& env, const std::vector<std::string>& argv) {
    PreparedExec prepared(env, argv);
    pid_t pid = fork();
    if (pid == 0) {
        setpgid(0, 0);
        prepared.exec();
    }
    return pid;
}

pid_t start_on_terminal(const OmsEnv& env, const std::vector<std::string>& argv, int& master) {
    PreparedExec prepared(env, argv);
    pid_t pid = forkpty(&master, nullptr, nullptr, nullptr);
    if (pid == 0) prepared.exec();
    return pid;
}

bool read_until(int fd, std::string& screen, const std::string& text) {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    char buffer[4096];
    while (screen.find(text) == std::string::npos) {
        if (std::chrono::steady_clock::now() > deadline) return false;
        pollfd p{fd, POLLIN, 0};
        if (poll(&p, 1, 200) <= 0) continue;
        ssize_t n = read(fd, buffer, sizeof buffer);
        if (n <= 0) return false;
        screen.append(buffer, static_cast<size_t>(n));
    }
    return true;
}

}  // namespace oms::test
