// The saved inputs `oms verify` judges: a private copy of the worktree's
// tracked files (or a configured list) plus the pinned files, made through
// descriptors opened without following links, so the check never sees the
// live worktree and nothing changed there during the check can reach it.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace oms::core {

struct SnapshotReport {
    std::string source;  // where the list came from (the git index read, or "configured list")
    size_t files = 0;
    uint64_t bytes = 0;
    uint64_t max_bytes = 0;  // the limit the copy was made under
    std::vector<std::string> skipped;  // "path: why" for links, devices, missing files
};

// Refuses (UserError) a name that is empty, absolute, or has a "." or ".."
// part: inputs are named relative to the worktree and stay inside it.
void check_relative_input(const std::string& name, const std::string& what);

// A fresh folder oms owns (mode 0700) under `base`, holding the copy; removed
// with everything in it when the object dies.
class SnapshotFolder {
public:
    explicit SnapshotFolder(const std::string& base);
    ~SnapshotFolder();
    SnapshotFolder(const SnapshotFolder&) = delete;
    SnapshotFolder& operator=(const SnapshotFolder&) = delete;
    const std::string& path() const { return path_; }

private:
    std::string path_;
};

// Copies each input (a file, or a folder with everything below it) from
// `worktree` into `target`. Only regular files are copied, read-only (0444,
// or 0555 when executable); links anywhere on the way, devices, sockets and
// FIFOs are skipped and listed; folders become 0555 once filled.
// More than `max_bytes` in all stops the copy with an error naming the file
// (a command could make a tracked file huge, or sparse, to fill the disk).
SnapshotReport copy_inputs(const std::string& worktree, const std::vector<std::string>& inputs,
                           const std::string& target, uint64_t max_bytes);

}  // namespace oms::core
