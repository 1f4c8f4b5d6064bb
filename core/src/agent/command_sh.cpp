// oms sh: a shell for tools that take a shell program (an agent's SHELL, a
// test runner's shell option). `oms sh ARGS...` is `sh ARGS...` run under
// `oms run` in the current folder's worktree: the same status (128+N when
// the command dies of signal N), the same stdin, stdout and stderr (a
// terminal stays a terminal), the signals oms forwards. Nothing but the
// worktree persists between two calls: each is a run of its own, with a
// fresh private HOME and temp folder, and no shell state (variables, cd,
// functions) carries over.
#include "oms/core/cli.hpp"

#include <cstdio>

namespace oms::core {

namespace {

const char* kUsage =
    "usage: oms sh [-c COMMAND [NAME [ARG...]]] [SH-OPTIONS...]\n\n"
    "Runs sh with these arguments under `oms run --quiet` in the worktree of the current folder (the top\n"
    "of its repository, else the folder itself), starting in the current folder: `oms sh -c CMD` is\n"
    "`sh -c CMD`, confined. Exit status, stdin, stdout and stderr are the command's. Only the worktree\n"
    "persists between calls: every call is a run of its own (fresh private HOME and temp folder, no shell\n"
    "state). Refusals and warnings of oms still print on stderr. See docs/agents.md.\n\n"
    "options:\n"
    "  --help    show this help (only as the first argument; every other one goes to sh)\n";

}  // namespace

int command_sh(const Args& args) {
    if (!args.empty() && (args[0] == "--help" || args[0] == "-h")) {
        std::fputs(kUsage, stdout);
        return 0;
    }
    // --quiet: a shell prints nothing of its own; oms's refusals still show.
    Args run_args{"--quiet", "--", "sh"};
    run_args.insert(run_args.end(), args.begin(), args.end());
    return command_run(run_args);
}

}  // namespace oms::core
