// command_shape.hpp: how the words of a command decide the line after its failure.
#include "oms/core/command_shape.hpp"

#include <catch2/catch.hpp>

using oms::core::runs_a_git_write;
using oms::core::status_is_an_answer;

TEST_CASE("command_shape: a tool's 1 that means an answer, directly or as a script's last command") {
    struct Case {
        std::vector<std::string> argv;
        int status;
        bool answer;
    };
    const std::vector<Case> cases{
        {{"grep", "-q", "x", "f"}, 1, true},
        {{"/usr/bin/rg", "x"}, 1, true},
        {{"diff", "a", "b"}, 1, true},
        {{"test", "-e", "x"}, 1, true},
        {{"grep", "x", "missing-file"}, 2, false},  // grep's 2 is an error
        {{"pytest"}, 1, false},                      // a failed test suite is worth the line once
        {{"sh", "-c", "cd src && grep -r TODO ."}, 1, true},
        {{"bash", "-lc", "grep -q x f; make"}, 1, false},  // the last command decides
        {{"sh", "-c", "make | grep error"}, 1, true},
        {{"sh", "script.sh"}, 1, false},
        {{}, 1, false},
    };
    for (const Case& c : cases) {
        CAPTURE(c.argv, c.status);
        CHECK(status_is_an_answer(c.argv, c.status) == c.answer);
    }
}

TEST_CASE("command_shape: a git command that writes the repository, directly or in a script") {
    struct Case {
        std::vector<std::string> argv;
        bool writes;
    };
    const std::vector<Case> cases{
        {{"git", "commit", "-m", "x"}, true},
        {{"/usr/bin/git", "-C", "sub", "add", "."}, true},
        {{"git", "-c", "user.name=a", "commit"}, true},
        {{"git", "status"}, false},
        {{"git", "log", "--oneline"}, false},
        {{"git", "diff"}, false},
        {{"git", "config", "--get", "user.name"}, false},
        {{"sh", "-c", "git add -A && git commit -qm 'work'"}, true},
        {{"bash", "-c", "git status; ls"}, false},
        {{"echo", "git", "commit"}, false},
        {{"sh", "-c", "echo git commit"}, false},
        {{"gitk"}, false},
    };
    for (const Case& c : cases) {
        CAPTURE(c.argv);
        CHECK(runs_a_git_write(c.argv) == c.writes);
    }
}
