// The keypair search's matches made into mask targets: the real path (a
// link's target), whether it is a folder, and the device and inode the child
// checks before covering it (child_mounts.cpp), so what is masked is what was
// matched. One stat per match, not per file of the walk; done at every start,
// so the scan cache (scan_cache.hpp) cannot stand in for it.
//
// Refused (oms::sdk::Error, one line naming every such path), because a mask
// covers one name and these reach the key under another:
//  - a file with more than one name (st_nlink > 1): a hard link planted in an
//    earlier run, while the keypair file was still empty, shows its content
//    once the user copies the key into it. The other names could lie in any
//    folder of the file system the command reads (all of it outside HOME),
//    far beyond what the walk sees, so they are not looked for and hidden.
//  - a keypair-named link that leads to a folder: a key copied onto the
//    link's name lands inside that folder, under a name that matches nothing.
//  - a keypair-named link that leads to a file the run can read under a name
//    no keypair rule matches, or outside the folders the search walks: the
//    mask covers that file only while the link exists, and a command can
//    remove the link (it lies in a write root), so the next run reads the
//    key under the target's name.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace oms::landlock {

struct KeypairTarget {
    std::string path;       // canonical
    bool folder = false;    // a folder whose name matches: hidden whole
    uint64_t device = 0;    // st_dev, st_ino when the search saw it (0: not known)
    uint64_t inode = 0;
};

// What decides whether a link's target keeps its key hidden on its own:
// the keypair suffixes, whether commands of the run can read a path, and
// whether the search walks it (a keypair-named target outside the walked
// folders is found by no later run once the link is gone).
struct KeypairNaming {
    std::vector<std::string> suffixes;
    std::function<bool(const std::string&)> readable;
    std::function<bool(const std::string&)> searched;
};

// The matches as targets. Throws for the cases above, and for a match no
// longer at its path: a folder renamed back and forth while runs start
// would otherwise leave the key unhidden under a name the walk had passed.
std::vector<KeypairTarget> keypair_targets(const std::vector<std::string>& matches, const KeypairNaming& naming);

// The first match no longer at its path, or "" when all are there. A match
// removed since the walk has nothing to hide, but one moved may lie where
// the walk had passed: the caller walks again (a removed one is then gone
// from the answer), and after kWalkTries walks refuses the run with
// moved_since_search().
std::string first_match_gone(const std::vector<std::string>& matches);
[[noreturn]] void moved_since_search(const std::string& match);

}  // namespace oms::landlock
