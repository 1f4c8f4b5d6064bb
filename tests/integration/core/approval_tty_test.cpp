// host-null's approval on a real terminal: oms asks on /dev/tty, "y" runs the
// command, anything else does not. Driven through a pseudo-terminal.
#include "oms_env.hpp"

#include <poll.h>
#include <pty.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>

using namespace oms::test;

namespace {

struct TerminalRun {
    std::string screen;  // everything oms wrote to the terminal
    int exit_code = -1;
};

// Reads until `text` appears on the terminal or the deadline passes.
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

TerminalRun answer_prompt(const OmsEnv& env, const std::string& answer) {
    std::vector<std::string> argv{oms_binary(), "run", "--sandbox", "host-null", "--", "/bin/sh", "-c", "touch ran"};
    std::vector<std::string> entries;
    for (auto& [name, value] : env.env) entries.push_back(name + "=" + value);
    int master = -1;
    pid_t pid = forkpty(&master, nullptr, nullptr, nullptr);
    REQUIRE(pid >= 0);
    if (pid == 0) {
        std::vector<char*> args, envp;
        for (auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
        args.push_back(nullptr);
        for (auto& e : entries) envp.push_back(const_cast<char*>(e.c_str()));
        envp.push_back(nullptr);
        if (chdir(env.worktree.c_str()) != 0) _exit(126);
        execve(args[0], args.data(), envp.data());
        _exit(127);
    }
    TerminalRun run;
    bool asked = read_until(master, run.screen, "[y/N] ");
    if (asked) {
        ssize_t ignored = write(master, answer.data(), answer.size());
        (void)ignored;
    }
    std::string rest;
    read_until(master, rest, "\x04never");  // drain until the terminal closes
    run.screen += rest;
    int status = 0;
    waitpid(pid, &status, 0);
    close(master);
    run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    return run;
}

}  // namespace

TEST_CASE("on a terminal, host-null asks before each command; y runs it") {
    OmsEnv env;
    TerminalRun run = answer_prompt(env, "y\n");
    INFO(run.screen);
    CHECK_THAT(run.screen, Catch::Contains("oms: run '/bin/sh' '-c' 'touch ran' with backend host-null"));
    CHECK(run.exit_code == 0);
    CHECK(exists(env.worktree + "/ran"));
}

TEST_CASE("on a terminal, any answer but y refuses and runs nothing") {
    for (const char* answer : {"n\n", "\n", "nope\n"}) {
        OmsEnv env;
        TerminalRun run = answer_prompt(env, answer);
        INFO(answer << run.screen);
        CHECK_THAT(run.screen, Catch::Contains("[y/N]"));
        CHECK(run.exit_code == 77);
        CHECK_THAT(run.screen, Catch::Contains("not approved: the command did not run"));
        CHECK_FALSE(exists(env.worktree + "/ran"));
    }
}
