// The files `oms verify` snapshots by default: those git tracks in the
// worktree, read from the repository's index by oms itself (git_index.hpp).
// git is never run here: the repository may have been written by a command,
// and git run on it can be made to fetch and run what that command chose.
#pragma once
#include <functional>
#include <string>
#include <vector>

namespace oms::core {

struct TrackedFiles {
    std::string index;               // the index file read ("" when none was found)
    std::vector<std::string> files;  // relative to the worktree
    std::vector<std::string> notes;  // "path: why" for tracked folders left out (sparse checkout)
    std::string git_identity;        // "DEV INO" of the .git entry the index was read through
};

// The tracked files under `worktree` (a resolved path), from the index of the
// repository holding it: <top>/.git/index, or X/index when .git is a
// "gitdir: X" file. An empty list when nothing was added yet. Throws
// UserError (naming the file and saying how to name the inputs instead) when
// there is no repository or its index cannot be read. The `.git` entry is
// opened once and everything is read through that descriptor, so the
// identity reported is the one of what was read, whatever moves meanwhile.
// `accept` is called with that identity before anything of the repository
// is read, and throws to refuse it.
TrackedFiles tracked_files(const std::string& worktree,
                           const std::function<void(const std::string& git_identity)>& accept);

}  // namespace oms::core
