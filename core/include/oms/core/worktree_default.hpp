// The worktree of a run when --worktree is not given: the top level of the
// repository holding the current folder, so `../README.md` and git work from
// a subfolder, while the command still starts in the folder the user is in.
#pragma once
#include <optional>
#include <string>

namespace oms::core {

struct WorktreeChoice {
    std::string worktree;     // resolved
    std::string working_dir;  // resolved: the worktree or a folder below it
};

// `current` is the working folder. The worktree is the top of the repository
// holding it (repository_top) when that top may be a worktree
// (may_be_worktree); otherwise, or outside a repository, `current` itself.
WorktreeChoice default_worktree(const std::string& current);

// The stderr line naming the worktree when the command does not start in
// it; nullopt when both are the same folder.
std::optional<std::string> worktree_line(const WorktreeChoice& choice);

}  // namespace oms::core
