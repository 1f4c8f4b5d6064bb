// oms/secret_search.hpp: the keypair search, for every backend (library
// oms::secret-search: libc and the C++ standard library only). Given the
// trees a command will see and the policy's READ_DENY_SUFFIX texts, it says
// what to hide, and what no mask can hide, by what each name leads to, not
// by the name alone. The rules, each learnt from an attack
// (docs/writing-a-backend.md, "The keypair search"; the kit's obligations
// in docs/backend-checklist.md):
//
//  - A file whose path ends with a suffix is a match, with the device and
//    inode the walk saw (check them where you mask, if you can).
//  - A folder whose path ends with a suffix (a keypair's name made a folder,
//    so a `cp` of the key lands inside it) is a match too: hide it whole;
//    it is not entered.                                  (keypair-folder-name)
//  - A matching file with more than one name (a hard link planted while it
//    was empty, before the key was copied into it) is listed in `linked`
//    with the other names the walk met: a mask covers one name only, and
//    the others may lie outside the walked trees.          (keypair-hard-link)
//  - A matching link that leads to a folder the command can read, or to a
//    file it can read whose own path matches no suffix or lies outside the
//    roots, is listed in `keypair_links`: a `cp` onto the link's name writes
//    the target, which a mask on the link covers only while the link
//    exists. What the command can read: the roots, and with
//    `host_readable_outside` everything.
//                                                    (keypair-link-to-file)
//    These two rules are oms/keypair_targets.hpp's table, shared with a
//    backend that walks on its own (judge_keypair_match).
//  - A folder listed but gone when the walk came to open it (renamed, maybe,
//    to a name the listing had passed) makes the walk start again; three
//    walks in a row, and the search throws.              (keypair-rename-race)
//  - A folder the walk cannot read is never skipped: the caller's own gets
//    its owner's read and search rights back; another user's that the
//    caller may neither list nor write (it holds nothing the caller put
//    there) is skipped only when `skip_closed_folders_of_others` says the
//    command cannot read it either; otherwise the search throws, naming it.
//  - Links are never followed on the way; `skip` paths are not entered.
//  - A folder nested deeper than kMaxScanDepth (oms/keypair_walk.hpp) is not
//    walked; it is listed in `folders` (hidden whole) instead.
//  - What a match is (file, folder, link; its link count, device and inode)
//    is taken in its folder's open descriptor while the walk is there, not
//    by its path afterwards. A match whose target cannot be resolved (a
//    path past PATH_MAX) is refused, never taken for its own name.
//
// The walk is the one every backend of the repository uses
// (oms/keypair_walk.hpp: raw listings, two threads on a large tree, no link
// followed); oms/keypair_walk_cached.hpp gives the same answer from a cache
// of the last walk, for a backend that searches at every start.
//
// refuse_unhideable() turns `linked` and `keypair_links` into the one-line
// refusal a backend throws from spawn: nothing runs while one exists.
// What stays the backend's: masking each match so that what it covers is
// the file the walk saw (the search cannot see a rename after it returns).
#ifndef OMS_SECRET_SEARCH_HPP
#define OMS_SECRET_SEARCH_HPP

#include <oms/keypair_notice.hpp>
#include <oms/keypair_targets.hpp>

#include <cstddef>
#include <string>
#include <vector>

namespace oms::sdk {

// A matching file that has other names (hard links).
struct LinkedSecret {
    std::string path;
    unsigned long names = 0;               // its link count
    std::vector<std::string> other_names;  // the ones found in the walked trees, sorted
};

struct SecretSearch {
    std::string backend;                // names the backend in every message ("docker")
    std::vector<std::string> roots;     // absolute; folders walked, a file judged alone
    std::vector<std::string> suffixes;  // the READ_DENY_SUFFIX texts ("-keypair.json", "/id.json")
    std::vector<std::string> skip;      // paths hidden whole already: folders not entered, files not matched
    std::vector<std::string> names;     // entry names to collect as well (".git" of WRITE_DENY_NAME)
    size_t entry_limit = 500000;        // entries looked at in all; past it `complete` is false
    // The command runs as the caller's uid and gid with no other group: a
    // folder of another user the caller can neither list nor write, the
    // command cannot read either, so it is left unsearched instead of
    // stopping the run.
    bool skip_closed_folders_of_others = false;
    // Lists every link met below the roots in `links` as well, for a caller
    // with rules of its own about links (oms verify: a link to a writable
    // folder outside the worktree). The walk is the same, suffixes or not.
    bool collect_links = false;
    // The command can read the host outside the roots (a launcher that binds
    // `/` read-only, a sandbox of path rules): a keypair-named link that
    // leads out of the roots is refused like one inside them, since a `cp`
    // through it writes where the command reads. Off for a container, which
    // shows only its mounts.
    bool host_readable_outside = false;
    // Roots where a command can plant links (the write roots), for a command
    // that can read the host outside the roots: a folder outside the roots
    // and outside `hidden` that a link below one of these leads to is
    // searched as a root too (a command links `target/deploy` to `/tmp/d`
    // and plants a second name of an empty keypair file there; your `cp`
    // lands in it), three rounds deep, then `complete` is false.
    std::vector<std::string> follow_links_from = {};
    std::vector<std::string> hidden = {};  // trees the command cannot read (HOME): links into them are not followed
    // Suffixes matched without regard to ASCII case, for a case-insensitive
    // file system (macOS's default), where `PROG-KEYPAIR.JSON` is the file a
    // `cp` to `prog-keypair.json` writes. Other Unicode case folds (the
    // Kelvin sign for `k`, the long s for `s`) are not matched.
    bool fold_case = false;
};

struct SecretFindings {
    std::vector<std::string> files;       // matching files, sorted
    std::vector<SeenKeypairMatch> seen;   // the same with the device and inode the walk saw
    std::vector<std::string> folders;     // matching folders, sorted (hide whole)
    std::vector<LinkedSecret> linked;     // matching files with more than one name, sorted by path
    std::vector<UnhideableKeypair> keypair_links;  // keypair-named links no mask hides alone, sorted by path
    std::vector<std::string> named;       // folders and files with a wanted name, sorted (links are not)
    std::vector<std::string> links;       // every link met, sorted, when collect_links (never followed)
    bool complete = true;                 // false when the entry limit was reached
};

// Walks each root as above. Throws oms::sdk::Error (OMS_ERR_FAILED) for a
// folder it cannot read, or one that kept vanishing while it was walked.
SecretFindings find_secrets(const SecretSearch& search);

// Throws oms::sdk::Error (OMS_ERR_FAILED), one line naming every path, when
// `found` holds a file with several names or a keypair-named link; returns
// otherwise.
void refuse_unhideable(const SecretFindings& found, const std::string& backend);

}  // namespace oms::sdk

#endif
