// Finds the files a READ_DENY_SUFFIX rule covers. Landlock cannot match
// names, so the files that exist when the command starts are listed here and
// hidden one by one. Uses getdents types only (no stat per file) to stay fast
// on large worktrees. A folder whose name ends with a suffix is a match too,
// and is not walked: it is hidden whole (a keypair copied onto a folder's
// name lands inside it, under a name that matches nothing).
#pragma once
#include <cstddef>
#include <set>
#include <string>
#include <vector>

namespace oms::landlock {

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
// (listed in its parent a moment before) is started again, this many times in
// all; then the run fails (changed_during_walk). Skipping it would miss what
// it held if it had only been moved: into a folder already read, the keypair
// in it would be found nowhere.
constexpr int kWalkTries = 3;
[[noreturn]] void changed_during_walk(const std::string& folder);

struct ScanRequest {
    std::vector<std::string> roots;     // folders to walk
    std::vector<std::string> suffixes;  // "-keypair.json", "/id.json"
    std::vector<std::string> skip;      // folders hidden whole, not worth walking
    std::vector<std::string> names = {};  // entry names collected too (".git": WRITE_DENY_NAME)
    bool links = false;                   // collect every symlink met too
};

// What one walk found, as paths under the roots.
struct ScanFindings {
    std::set<std::string> secrets;  // ends with a suffix (a link only when it points at something)
    std::set<std::string> named;    // folders, files and links whose name is one of `names`
    std::set<std::string> links;    // every symlink, when the request asks for them
    std::set<std::string> too_deep; // folders past kMaxScanDepth: in `secrets` too (hidden whole)
    std::string vanished;           // a folder listed but gone when opened: walk again
};

// Paths (as found under the roots) whose text ends with one of the suffixes:
// files, folders (not walked), and symlinks that point at something; and
// the folders past kMaxScanDepth (also added to `too_deep` when given).
// Throws oms::sdk::Error for a folder that cannot be read (walk_open.hpp)
// and for a tree that kept changing under kWalkTries walks: never a search
// in part.
std::vector<std::string> find_secret_files(const ScanRequest& request, std::set<std::string>* too_deep = nullptr);

// The same walk, also collecting the entries named in request.names.
ScanFindings scan_tree(const ScanRequest& request);

}  // namespace oms::landlock
