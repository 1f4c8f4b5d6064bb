// --ro and --rw folders (flags and the config's sandbox.read_only and
// read_write) are resolved by the core before any plugin sees them, so the
// plugins' link checks only ever see the resolved path. A link on the way
// that lies where a command can write (the worktree, a system temp folder)
// may have been planted by an earlier command, and would choose what the
// run opens: such a path is refused here, before anything runs.
#pragma once
#include <string>
#include <vector>

namespace oms::core {

// `path` resolved (absolute; lexically normal when it does not exist).
// Throws UserError (kExitRefused) when resolving it follows a link inside one
// of `command_writable` (resolved folders), or when it resolves differently
// a moment later (a folder on the way is being swapped).
std::string checked_mount_path(const std::string& path, const std::vector<std::string>& command_writable,
                               const std::string& flag);

// The folders an earlier command may have written, as far as the core knows
// them before the policy exists: the worktree and the system temp folders.
std::vector<std::string> folders_commands_write(const std::string& worktree);

}  // namespace oms::core
