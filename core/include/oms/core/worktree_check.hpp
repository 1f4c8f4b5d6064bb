// A worktree is where a command may read AND write. Some folders must never
// be one: HOME, `/` or a folder above HOME (every file of HOME would become
// writable: ~/.bashrc runs at the next login), a shared temp folder (/tmp
// itself: other programs' sockets and files), and a folder holding oms's own
// config or state (a command could rewrite the config the next `oms run`
// trusts). The check is the core's, so it holds for every backend.
#pragma once
#include <string>

namespace oms::core {

// Throws UserError(kExitRefused) naming why `worktree` (as the user gave it)
// is refused and what to pass instead. Links are resolved first: a link to
// HOME is HOME. A worktree reached through a link lying in a repository or a
// system temp folder (which another task's command could have planted) is
// refused too. Returns the real path it checked for an ordinary project
// folder: use that string from then on (a second resolution could follow a
// link swapped in since).
std::string checked_worktree(const std::string& worktree);
// Throws UserError(kExitRefused) when the worktree a session resolved
// (`now`) is not the one checked: a folder on the way was swapped between.
void refuse_changed_worktree(const std::string& checked, const std::string& now);

// True when `folder` could be a worktree (the same check, without a message).
bool may_be_worktree(const std::string& folder);

}  // namespace oms::core
