// host-null's approval on a real terminal: oms asks on /dev/tty, "y" runs the
// command, anything else does not. Driven through a pseudo-terminal.
#include "background.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>

using namespace oms::test;

namespace {

struct TerminalRun {
    std::string screen;  // everything oms wrote to the terminal
    int exit_code = -1;
};

TerminalRun answer_prompt(const OmsEnv& env, const std::string& answer) {
    std::vector<std::string> argv{oms_binary(), "run", "--sandbox", "host-null", "--", "/bin/sh", "-c", "touch ran"};
    int master = -1;
    pid_t pid = start_on_terminal(env, argv, master);
    REQUIRE(pid >= 0);
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
