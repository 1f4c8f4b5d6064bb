// The top level of the repository holding a folder: the nearest folder at or
// above it that holds `.git` (a folder, or the file of a linked worktree or
// submodule). The search stops before `/`, HOME and the folders above it and
// the system temp folders: those are never a worktree, and a `.git` a command
// could leave in /tmp must not widen the next run's worktree.
#pragma once
#include <optional>
#include <string>

namespace oms::core {

// nullopt when no such folder lies between `folder` (resolved) and the stops.
std::optional<std::string> repository_top(const std::string& folder);

// When the worktree is defaulted to the current folder `current` and that
// lies below its repository's top level, the stderr line that says so (and
// how to pass the whole repository); nullopt otherwise.
std::optional<std::string> subfolder_note(const std::string& current);

}  // namespace oms::core
