// Finds the files a READ_DENY_SUFFIX rule covers inside the trees a container
// will see (worktree and mounts), so each can be masked, and the entries a
// WRITE_DENY_NAME rule names (".git"), so each can be mounted read-only.
// Docker has no pattern-based deny: only files that exist when the container
// starts are masked, which the backend reports as a missing guarantee.
//
// A folder the walk cannot read is never skipped: the container's user can
// chmod 000 a folder of the worktree to hide a keypair from the next search.
// When the calling user owns it, it gets its owner's read and search rights
// back and is searched; otherwise the run fails, naming the folder.
//
// A folder whose path ends with a suffix (a keypair's name made a folder, so
// a `cp` of the key lands inside it) is a match too, masked whole and not
// entered. A matching file with more than one name (a hard link planted
// before the key was written into it) is reported with the other names the
// walk met: masking one name would leave the key readable through another.
// A link whose name matches is reported when it leads to a folder, or to a
// file whose own path matches no suffix: a `cp` of the key onto the link's
// name writes that file, which no mask would cover.
#pragma once
#include <oms/keypair_notice.hpp>

#include <cstddef>
#include <string>
#include <vector>

namespace oms::docker {

// A matching file that has other names (hard links).
struct LinkedMatch {
    std::string path;
    unsigned long names = 0;               // its link count
    std::vector<std::string> other_names;  // the ones found in the walked trees, sorted
};

struct ScanResult {
    std::vector<std::string> matches;          // files, absolute paths, sorted
    std::vector<sdk::SeenKeypairMatch> seen;   // the same files with the device and inode the walk saw
    std::vector<std::string> matched_folders;  // folders whose path matches, sorted (not entered)
    std::vector<LinkedMatch> linked;           // matches with more than one name, sorted by path
    // Keypair-named links whose target the container could read under a
    // name no suffix matches, or that lead to a folder: "PATH (a link to T)".
    std::vector<std::string> keypair_links;
    std::vector<std::string> named;    // folders and files with a wanted name, sorted (links are not)
    bool complete = true;              // false when the entry limit was reached
};

struct ScanRequest {
    std::vector<std::string> roots;
    std::vector<std::string> suffixes;  // "-keypair.json"
    std::vector<std::string> skip;      // paths masked whole: folders not entered, files not matched
    std::vector<std::string> names;     // entry names to collect (".git")
    size_t entry_limit = 500000;
    // The container runs as oms's own uid and gid, with no other group: a
    // folder of another user that oms cannot read, its command cannot read
    // either, so it is left unsearched instead of stopping the run (a
    // shared /tmp holds such folders).
    bool container_is_oms_user = false;
};

// Walks each root (not following symlinks, not crossing into `skip` paths).
// Throws sdk::Error (OMS_ERR_FAILED) for a folder it cannot read.
ScanResult scan_mounts(const ScanRequest& request);

// Regular files (and folders) whose path ends with one of `suffixes` (scan_mounts without names).
ScanResult find_suffix_matches(const std::vector<std::string>& roots, const std::vector<std::string>& suffixes,
                               const std::vector<std::string>& skip, size_t entry_limit = 500000);

}  // namespace oms::docker
