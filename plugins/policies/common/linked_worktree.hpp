// A linked git worktree (`git worktree add`) has a FILE named .git that says
// "gitdir: <X>"; X holds its HEAD and index, and X/commondir names the main
// repository's .git (objects, refs), relative to X. Commands like `git status`
// need to read both, so toolchain-roots opens them; write-roots protects X.
#pragma once
#include <optional>
#include <string>
#include <string_view>

namespace oms::policies {

struct LinkedGitDirs {
    std::string dot_git;                   // <worktree>/.git, the file itself
    std::string git_dir;                   // X, symlinks resolved
    std::optional<std::string> common_dir; // X/commondir resolved, when present and existing
};

// The git folders of `worktree` when its .git is a "gitdir:" file whose target
// exists; nullopt for an ordinary repository (.git folder) or no git at all.
std::optional<LinkedGitDirs> find_linked_git_dirs(std::string_view worktree);

}  // namespace oms::policies
