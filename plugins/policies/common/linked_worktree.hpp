// A linked git worktree (`git worktree add`) has a FILE named .git that says
// "gitdir: <X>"; X holds its HEAD and index, and X/commondir names the main
// repository's .git (objects, refs), relative to X. Commands like `git status`
// need to read both, so toolchain-roots opens them; write-roots protects X.
//
// That file lies in the worktree, where commands write: it is untrusted
// input. Run 1 may write "gitdir: ../.." so that run 2 would open HOME. It is
// followed only when the layout is git's own, both ways:
//   X is <R>/worktrees/<name>, R a git folder (HEAD, objects/);
//   X/gitdir points back at this worktree's .git file;
//   X/commondir resolves to R.
#pragma once
#include <optional>
#include <string>
#include <string_view>

namespace oms::policies {

struct LinkedGitDirs {
    std::string dot_git;     // <worktree>/.git, the file itself
    std::string git_dir;     // X, links resolved
    std::string common_dir;  // R (X/commondir), links resolved
};

struct LinkedWorktree {
    std::optional<LinkedGitDirs> dirs;  // set when the layout checks out
    std::optional<std::string> refusal; // set when a .git file was there but was not followed: why
};

// The git folders of `worktree` when its .git is a "gitdir:" file with git's
// own layout. Neither is set for an ordinary repository (.git folder) or no
// git at all.
LinkedWorktree find_linked_git_dirs(std::string_view worktree);

}  // namespace oms::policies
