#include "oms/core/worktree_default.hpp"

#include "oms/core/protected_folders.hpp"
#include "oms/core/repository_top.hpp"
#include "oms/core/worktree_check.hpp"

namespace oms::core {

WorktreeChoice default_worktree(const std::string& current) {
    WorktreeChoice choice;
    choice.working_dir = resolved_path(current);
    choice.worktree = choice.working_dir;
    // An unsafe top (HOME is never returned; oms's own folders could be)
    // leaves the current folder as the worktree, as before: widening must
    // never turn a run that was allowed into one that is refused.
    if (auto top = repository_top(choice.working_dir); top && may_be_worktree(*top)) choice.worktree = *top;
    return choice;
}

std::optional<std::string> worktree_line(const WorktreeChoice& choice) {
    if (choice.worktree == choice.working_dir) return std::nullopt;
    return "oms: worktree: " + choice.worktree + " (the repository holding the current folder; the command starts in " +
           choice.working_dir + ")";
}

}  // namespace oms::core
