// Keypair names that are links, in the live worktree `oms verify` copies
// from. A run refuses to start while one leads to a folder, or to a file it
// can read under a name no keypair rule matches: what the user's `cp` of a
// key onto the link's name wrote lies at the target, under a harmless name.
// The snapshot would hold that target as a plain file (a tracked notes.txt,
// or a folder named in --inputs), so verify refuses in the same cases.
#pragma once
#include <functional>
#include <string>
#include <vector>

namespace oms::core {

// "PATH (a link to TARGET, ...)" for each keypair-named link below
// `worktree` (`.git` folders not entered, no link followed while walking;
// a folder it cannot list, or any other error, throws UserError)
// that leads to a folder, or to a file whose real path ends with none of
// `suffixes` and that `readable` says the check could read. A link that
// leads nowhere hides nothing yet and is not listed.
std::vector<std::string> keypair_links_to_refuse(const std::string& worktree, const std::vector<std::string>& suffixes,
                                                 const std::function<bool(const std::string&)>& readable);

}  // namespace oms::core
