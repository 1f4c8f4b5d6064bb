// The keypair search made incremental with a cache per root (scan_cache.hpp):
// each folder the cache knows is checked with one stat and read again only
// when its device, inode, mtime or ctime changed, when it vanished or became
// something else, or when it had changed too close to the moment it was read.
// Folders the cache does not know are read in full. The result is the one a
// full walk would give (scan_tree, find_secret_files); only the time differs.
// With a scan keeper (oms/scan_keeper.hpp), the folders it saw unchanged since
// the cache was made, below folders settled the same way, are not even
// stat'ed: a large worktree then costs what its changed folders cost.
//
// The walk goes folder by folder from descriptors: each folder is opened or
// stat'ed by its one name in its parent's open descriptor, never following
// a link, so a tree changed under the walk cannot lead it out of the root.
// A root on a file system whose folder times are not known to move with
// every change (network and FUSE file systems, FAT) is walked in full and
// gets no cache.
#pragma once
#include <oms/keypair_walk.hpp>


#include <cstdint>
#include <string>
#include <vector>

namespace oms::sdk {

class ScanKeeper;

struct ScanStats {
    size_t folders_read = 0;    // opened and listed
    size_t folders_reused = 0;  // stat only (or none), entries taken from the cache
    size_t folders_vouched = 0; // of those, no system call at all: the scan keeper saw no change
    size_t keeper_answers = 0;  // roots the scan keeper answered for
    size_t caches_loaded = 0;   // roots whose cache file was valid
    size_t caches_written = 0;
    std::vector<std::string> too_deep;  // folders past kMaxScanDepth, hidden whole (also in the result)
    size_t roots_uncached = 0;          // on a file system whose folder times are not trusted
};

// A folder changed less than this before it was read may change again within
// the same timestamp tick without its mtime moving, so it is not trusted.
constexpr int64_t kUntrustedWindowNs = 2'000'000'000;

// `cache_dir` must exist, belong to the caller and lie out of every
// command's reach (landlock's is <state folder>/landlock-scan, given only
// when no write root reaches it). What scan_tree(request) would find:
// keypair matches, the entries request.names gives and, when asked, the
// symlinks; `vanished` is never set (the walk is started again, kWalkTries
// in all, then changed_during_walk()). Not for the plain walks' own options:
// entry_limit, names_of and stat_matches are not honoured, so a match's
// lstat is not in the answer; a caller stats each match itself and checks
// its device and inode where it masks (landlock: keypair_targets, then the
// sandbox's check at each mount).
ScanFindings scan_tree_cached(const ScanRequest& request, const std::string& cache_dir, ScanStats* stats = nullptr,
                              int64_t untrusted_window_ns = kUntrustedWindowNs, ScanKeeper* keeper = nullptr);

// The keypair matches alone (find_secret_files, cached).
std::vector<std::string> find_secret_files_cached(const ScanRequest& request, const std::string& cache_dir,
                                                  ScanStats* stats = nullptr,
                                                  int64_t untrusted_window_ns = kUntrustedWindowNs,
                                                  ScanKeeper* keeper = nullptr);

}  // namespace oms::sdk
