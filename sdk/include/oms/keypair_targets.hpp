// oms/keypair_targets.hpp: the keypair rules' one table (library
// oms::secret-search). What a keypair search's match becomes: a mask target
// (the real path, whether it is a folder, the device and inode to check
// before covering it, so what is masked is what was matched), or a reason
// no mask hides the key alone. find_secrets() (oms/secret_search.hpp) and a
// backend that walks with oms/keypair_walk.hpp judge their matches here, so
// the refusals are the same whichever way the search went.
//
// No mask hides the key alone, and the run is refused, one line naming every
// such path (docs/rule-semantics.md, the kit's keypair obligations):
//  - a file with more than one name (st_nlink > 1): a hard link planted in an
//    earlier run, while the keypair file was still empty, shows its content
//    once the user copies the key into it. A mask covers one name only.
//                                                         (keypair-hard-link)
//  - a keypair-named link to a folder, wherever it is: a key copied onto
//    the link's name lands inside that folder, under a name that matches
//    nothing, which a later run whose policy opens the folder reads.
//                                                       (keypair-folder-name)
//  - a keypair-named link to a file the command can read under a name no
//    keypair rule matches, or outside the folders the search walks: the mask
//    covers that file only while the link exists, and a command can remove
//    the link (it lies in a write root), so the next run reads the key under
//    the target's name.                                (keypair-link-to-file)
//  - a keypair-named link whose target cannot be resolved (a path longer
//    than PATH_MAX, built of short links): where a `cp` writes is unknown.
// One stat per match, not per file of the walk; done at every start, so a
// scan cache (oms/scan_cache.hpp) cannot stand in for it.
#pragma once
#include <sys/stat.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace oms::sdk {

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
    std::string backend = {};  // names the backend in the refusal ("landlock")
    bool fold_case = false;    // suffixes matched without regard to ASCII case
};

// A match no mask hides alone, and why ("a file with 2 names", "a link to
// the folder /x"). `other_names`: the file's other names the search met, when
// it looked for them.
struct UnhideableKeypair {
    std::string path;
    std::string why;
    std::vector<std::string> other_names = {};
    enum class Kind { several_names, folder_link, file_link } kind = Kind::several_names;
};

// Why no mask hides the key at `match` alone; an empty `why` when one
// does. `st`: the match as stat(2) (links followed) sees it; `is_link`: the
// match itself is a link; `target`: its real path ("" for a link whose
// target cannot be resolved).
UnhideableKeypair judge_keypair_match(const std::string& match, const struct stat& st, bool is_link,
                                      const std::string& target, const KeypairNaming& naming);

// The one-line refusal naming every path, with what to do about each kind.
[[noreturn]] void refuse_unhideable_keypairs(const std::vector<UnhideableKeypair>& problems,
                                             const std::string& backend);

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
[[noreturn]] void moved_since_search(const std::string& backend, const std::string& match);

}  // namespace oms::sdk
