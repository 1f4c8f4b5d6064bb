// Ctrl-C typed on a terminal: the terminal sends SIGINT to its whole
// foreground process group, oms included. The command must get it exactly
// once, whether it shares oms's group (and gets it from the terminal) or not
// (and gets it forwarded by oms). Driven through a pseudo-terminal. A second
// delivery that arrives while the first is still pending merges with it, so
// this end-to-end check can miss a double delivery under landlock; the rule
// itself (should_forward) has unit tests in tests/unit/core/signals_test.cpp.
#include "background.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <sstream>
#include <thread>

using namespace oms::test;

namespace {

size_t line_count(const std::string& path) {
    if (!exists(path)) return 0;
    std::istringstream in(read_file(path));
    size_t count = 0;
    for (std::string line; std::getline(in, line);) ++count;
    return count;
}

}  // namespace

TEST_CASE("Ctrl-C on the terminal reaches the command exactly once") {
    for (std::string backend : {"landlock", "host-null"}) {
        OmsEnv env;
        // The trap counts each SIGINT; the loop ends by itself a little later.
        std::vector<std::string> argv{oms_binary(), "run", "--sandbox", backend, "--yes", "--", "/bin/sh", "-c",
                                      "trap 'echo INT >> interrupts' INT; echo ready; i=0; "
                                      "while [ $i -lt 30 ]; do sleep 0.05; i=$((i+1)); done; echo done"};
        int master = -1;
        pid_t pid = start_on_terminal(env, argv, master);
        REQUIRE(pid > 0);
        std::string screen;
        REQUIRE(read_until(master, screen, "ready"));
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
        ssize_t typed = write(master, "\x03", 1);  // Ctrl-C
        REQUIRE(typed == 1);
        read_until(master, screen, "done");
        int status = 0;
        waitpid(pid, &status, 0);
        close(master);
        INFO(backend << " printed: " << screen);
        CHECK(line_count(env.worktree + "/interrupts") == 1);
        CHECK(WIFEXITED(status));
    }
}
