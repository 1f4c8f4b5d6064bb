// The one line oms prints on stderr after a command fails under a confining
// backend: which sandbox it ran in, and how to ask whether it refused
// something (`oms explain`). The command's own output is never touched.
#pragma once
#include "oms/core/env_options.hpp"

#include <string>
#include <vector>

namespace oms::core {

// False for a success and for the signals a user or a pipeline sends
// (SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE, SIGKILL as 128+N): the sandbox
// did not cause those, and a line after Ctrl-C is noise.
bool failure_hint_wanted(int exit_code);

// "oms: exit 1 under the landlock sandbox; not passed from your environment:
// PYTHONPATH (--env NAME passes one); if a file or port was refused, ask: oms
// explain ..." (variables by name only, never a value nor a credential-like name).
// The likeliest causes come first after the exit: the refusals named on the
// line above (`refused`), the files hidden from the run (`hidden_files`, two
// named, shown relative to `worktree`), `hidden_tool` (hidden_tool_note),
// then the dropped variables. After a refusal the line points at it alone: "oms: exit 7 under the landlock sandbox; see the
// refusal above (--quiet ...)".
std::string failure_hint(const std::string& backend_id, int exit_code, const DroppedVariables& dropped,
                         const std::string& hidden_tool = "", const std::vector<std::string>& hidden_files = {},
                         const std::string& worktree = "", size_t refused = 0);

struct FailedRun {
    std::string backend_id;
    int exit_code = 0;
    DroppedVariables dropped;
    std::vector<std::string> argv;  // the command as given
    std::string state_dir;          // oms's state folder: where "said once" is remembered
    std::string worktree;
    std::string hidden_tool;        // hidden_tool_note: the program is under HOME, lent by no rule
    std::vector<std::string> hidden_files;  // files the backend hid from the run (they fail to open)
    size_t refused = 0;             // refusals reported on the line above (connects, lookups)
};

// The line to print after a failed run, or "" when there is nothing worth
// saying: a git command that writes the repository gets the read-only .git
// line every time; a tool's answer (grep's 1 for "no match", see
// command_shape.hpp) gets none; any other status gets failure_hint's line
// once per worktree, backend, status and set of dropped variables, so a
// test suite failing again and again is not followed by the same line each
// time (`oms explain` always answers).
std::string failure_line(const FailedRun& run);

}  // namespace oms::core
