// oms/keypair_walk.hpp: the one walk of the keypair search (library
// oms::secret-search), below find_secrets() (oms/secret_search.hpp) and the
// cached walk (oms/keypair_walk_cached.hpp). It finds the paths a
// READ_DENY_SUFFIX rule covers, by their text: a backend that cannot match
// names in its sandbox lists the files that exist when the command starts
// and hides them one by one. Uses getdents types only (no stat per file) to
// stay fast on large worktrees, and two threads on a large tree. A folder
// whose name ends with a suffix is a match too, and is not walked: it is
// hidden whole (a keypair copied onto a folder's name lands inside it,
// under a name that matches nothing). Links are never followed; each folder
// is opened by its one name in its parent's descriptor.
#pragma once
#include <sys/stat.h>

#include <cstddef>
#include <cstdint>
#include <limits>
#include <map>
#include <set>
#include <utility>
#include <string>
#include <vector>

namespace oms::sdk {

// The getdents64 buffer of a walk.
constexpr size_t kScanBufferSize = 64 * 1024;

// Folders nested deeper than this are not walked. A folder at depth
// kMaxScanDepth + 1 is reported as a match instead, so it is hidden whole
// (an empty read-only folder on top): nothing below it can be read or
// written, and nothing is left unsearched but readable. Failing the run
// instead would let a command that makes such a tree in a shared write root
// (a Cargo cache) stop every later run until it is deleted.
constexpr int kMaxScanDepth = 256;

// A walk that met a folder gone or no longer a folder when it came to open it
// (listed in its parent a moment before), a match gone before its fstatat
// (with stat_matches), or, where listings carry no types, any entry gone
// before its type was asked, is started again, this many times in all; then
// the run fails (changed_during_walk). Skipping it would miss what it held
// if it had only been moved: into a folder already read, the keypair in it
// would be found nowhere.
constexpr int kWalkTries = 3;
[[noreturn]] void changed_during_walk(const std::string& backend, const std::string& path);

struct ScanRequest {
    std::vector<std::string> roots;     // folders to walk
    std::vector<std::string> suffixes;  // "-keypair.json", "/id.json"
    std::vector<std::string> skip;      // folders hidden whole, not worth walking
    std::vector<std::string> names = {};  // entry names collected too (".git": WRITE_DENY_NAME)
    bool links = false;                   // collect every symlink met too
    std::string backend = {};             // names the backend in every refusal ("landlock")
    // Entries looked at in all, every root together, in the plain walks (not
    // the cached one); past it the walk stops and ScanFindings::complete is
    // false.
    size_t entry_limit = std::numeric_limits<size_t>::max();
    // Suffixes matched without regard to ASCII case (a case-insensitive file
    // system, where `PROG-KEYPAIR.JSON` is the file a `cp` to
    // `prog-keypair.json` writes).
    bool fold_case = false;
    // Another user's folder this user may neither list nor write holds
    // nothing the user put there: passed over (walk_open.hpp). False when
    // the command can read what the caller cannot: the search then fails.
    bool pass_over_closed_folders_of_others = true;
    // Files by (device, inode) whose every name below the roots is wanted in
    // ScanFindings::names_of (a keypair's hard links): every plain file is
    // then stat'ed, on one thread.
    std::set<std::pair<uint64_t, uint64_t>> names_of = {};
    // Each match's lstat, taken in its folder's open descriptor while the
    // walk is there (ScanFindings::match_stats): what it is then, not after
    // the walk by a path a command may have changed since.
    bool stat_matches = false;
};

// What one walk found, as paths under the roots.
struct ScanFindings {
    std::set<std::string> secrets;  // ends with a suffix (a link only when it points at something)
    std::set<std::string> named;    // folders, files and links whose name is one of `names`
    std::set<std::string> links;    // every symlink, when the request asks for them
    std::set<std::string> too_deep; // folders past kMaxScanDepth: in `secrets` too (hidden whole)
    std::string vanished;           // a folder listed but gone when opened: walk again
    bool complete = true;           // false: the entry limit stopped the walk
    size_t entries_seen = 0;        // entries looked at, every root together
    std::map<std::pair<uint64_t, uint64_t>, std::vector<std::string>> names_of;  // as ScanRequest::names_of asks
    std::map<std::string, struct stat> match_stats;  // as ScanRequest::stat_matches asks
};

// Paths (as found under the roots) whose text ends with one of the suffixes:
// files, folders (not walked), and symlinks that point at something; and
// the folders past kMaxScanDepth (also added to `too_deep` when given).
// Throws Error for a folder that cannot be read (walk_open.hpp)
// and for a tree that kept changing under kWalkTries walks: never a search
// in part.
std::vector<std::string> find_secret_files(const ScanRequest& request, std::set<std::string>* too_deep = nullptr);

// The same walk, also collecting the entries named in request.names.
ScanFindings scan_tree(const ScanRequest& request);

}  // namespace oms::sdk
