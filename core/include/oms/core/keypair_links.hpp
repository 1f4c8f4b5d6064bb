// Links in the live worktree `oms verify` copies from that would hand the
// check a key under another name. A run refuses to start while a keypair
// name is a link to a folder, or to a file it can read under a name no
// keypair rule matches (what the user's `cp` of a key onto the link's name
// wrote lies at the target), and it searches a writable folder outside
// HOME that a link leads to. The snapshot would hold such a target as a
// plain file (a tracked notes.txt, or a folder named in --inputs), and the
// check reads outside HOME with no search of those folders, so verify
// refuses in these cases.
#pragma once
#include <functional>
#include <string>
#include <vector>

namespace oms::core {

struct LinkSearch {
    std::string worktree;                             // real path
    std::string home;                                 // the user's HOME ("" when none)
    std::vector<std::string> suffixes;                // "-keypair.json", "/id.json"
    std::function<bool(const std::string&)> readable; // whether the check could read a path
};

// "PATH (a link to TARGET, ...)" for each link below the worktree (every
// folder, `.git` ones too; no link followed while walking) that is
// keypair-named and leads to a folder, or to a readable file that is not a
// keypair-named file of the worktree; or that leads to a folder outside the
// worktree and HOME the user can write. A link that leads nowhere hides
// nothing yet and is not listed. The walk is the SDK's keypair search
// (oms/secret_search.hpp, every link collected); a folder it cannot read, or
// one that keeps vanishing, throws UserError.
std::vector<std::string> links_to_refuse(const LinkSearch& search);

}  // namespace oms::core
