// Finds the files a READ_DENY_SUFFIX rule covers inside the trees a container
// will see (worktree and mounts), so each can be masked. Docker has no
// pattern-based deny: only files that exist when the container starts are
// masked, which the backend reports as a missing guarantee.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

namespace oms::docker {

struct ScanResult {
    std::vector<std::string> matches;  // absolute paths, sorted
    bool complete = true;              // false when the entry limit was reached
};

// Walks each root (not following symlinks, not crossing into `skip` paths)
// and collects regular files whose path ends with one of `suffixes`.
ScanResult find_suffix_matches(const std::vector<std::string>& roots, const std::vector<std::string>& suffixes,
                               const std::vector<std::string>& skip, size_t entry_limit = 500000);

}  // namespace oms::docker
