// What a command's words say about how to read its exit status, for the
// line oms prints after a failure. Only the words are looked at: oms does
// not see what the command did.
#pragma once
#include <string>
#include <vector>

namespace oms::core {

// True when `exit_code` is a tool's answer rather than a failure: 1 from
// grep and its kin ("no match"), diff and cmp ("they differ"), test, [ and
// false. A shell's `-c` script is judged by its last simple command.
bool status_is_an_answer(const std::vector<std::string>& argv, int exit_code);

// True when the command runs git with a subcommand that writes the
// repository (commit, add, merge, rebase, tag, stash...), directly or as a
// word of a shell's `-c` script: under oms the task's .git is read-only, so
// that failure has one cause worth naming.
bool runs_a_git_write(const std::vector<std::string>& argv);

}  // namespace oms::core
