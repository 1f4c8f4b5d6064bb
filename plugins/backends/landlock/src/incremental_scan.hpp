// The keypair search of the allowed roots other than the worktree, made
// incremental with a cache per root (scan_cache.hpp): each folder the cache
// knows is checked with one stat and read again only when its device, inode,
// mtime or ctime changed, when it vanished or became something else, or when
// it had changed too close to the moment it was read. Folders the cache does
// not know are read in full. The result is the one a full walk would give
// (find_secret_files); only the time differs.
#pragma once
#include "secret_scan.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace oms::landlock {

struct ScanStats {
    size_t folders_read = 0;    // opened and listed
    size_t folders_reused = 0;  // stat only, entries taken from the cache
    size_t caches_loaded = 0;   // roots whose cache file was valid
    size_t caches_written = 0;
    std::vector<std::string> too_deep;  // folders past kMaxScanDepth, hidden whole (also in the result)
};

// A folder changed less than this before it was read may change again within
// the same timestamp tick without its mtime moving, so it is not trusted.
constexpr int64_t kUntrustedWindowNs = 2'000'000'000;

// `cache_dir` must exist and belong to the caller (scan_cache_dir()). The
// worktree must not be among the roots: it is walked in full every time.
std::vector<std::string> find_secret_files_cached(const ScanRequest& request, const std::string& cache_dir,
                                                  ScanStats* stats = nullptr,
                                                  int64_t untrusted_window_ns = kUntrustedWindowNs);

}  // namespace oms::landlock
