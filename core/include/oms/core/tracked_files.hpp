// The files `oms verify` snapshots by default: those git tracks in the
// worktree, read from the repository's index by oms itself (git_index.hpp).
// git is never run here: the repository may have been written by a command,
// and git run on it can be made to fetch and run what that command chose.
#pragma once
#include <string>
#include <vector>

namespace oms::core {

struct TrackedFiles {
    std::string index;               // the index file read ("" when none was found)
    std::vector<std::string> files;  // relative to the worktree
    std::vector<std::string> notes;  // "path: why" for tracked folders left out (sparse checkout)
};

// The tracked files under `worktree` (a resolved path), from the index of the
// repository holding it: <top>/.git/index, or X/index when .git is a
// "gitdir: X" file. An empty list when nothing was added yet. Throws
// UserError (naming the file and saying how to name the inputs instead) when
// there is no repository or its index cannot be read.
TrackedFiles tracked_files(const std::string& worktree);

}  // namespace oms::core
