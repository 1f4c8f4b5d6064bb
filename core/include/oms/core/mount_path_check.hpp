// Paths the core resolves itself before any plugin sees them: --ro and --rw
// folders (flags and the config's sandbox.read_only and read_write) and the
// worktree given with --worktree. The plugins' link checks only ever see the
// resolved path, so a link on the way that lies where a command can write
// (the worktree, a system temp folder, another task's repository) may have
// been planted by an earlier command and would choose what the run opens:
// such a path is refused here, before anything runs.
#pragma once
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace oms::core {

// Where a command could have made a link in `folder` (resolved): a phrase
// such as "inside /tmp", or nullopt when no command can write there.
using CommandWritable = std::function<std::optional<std::string>(const std::string& folder)>;

// Why `path` cannot be trusted, or nullopt; `resolved` gets its real path
// (lexically normal when it does not exist). It cannot be trusted when
// resolving it follows a link in a folder `writable` names, or when it
// resolves differently a moment later (a folder on the way is being swapped).
std::optional<std::string> planted_link_on_the_way(const std::string& path, const CommandWritable& writable,
                                                   std::string& resolved);

// `path` resolved; throws UserError (kExitRefused) naming `flag` when
// planted_link_on_the_way objects, with the worktree and the system temp
// folders as the places commands write.
std::string checked_mount_path(const std::string& path, const std::string& worktree, const std::string& flag);

// The system temp folders that exist (resolved): commands write there under
// every backend but landlock, whose are private.
std::vector<std::string> system_temp_folders();

}  // namespace oms::core
