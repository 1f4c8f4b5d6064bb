// oms's own files (its executable, plugin folders, default and user config,
// state folder) must never be writable by a command: the next `oms run`
// loads them unconfined. A write root that holds one of them, or lies inside
// one, gets a WRITE_DENY rule for it, so it stays read-only inside while the
// rest of the write root stays writable (a repository with oms built in it).
#pragma once
#include "oms/core/policy.hpp"

#include <string>
#include <vector>

namespace oms::core {

struct OwnFile {
    std::string path;   // resolved
    std::string named;  // as oms names it (OMS_PLUGIN_PATH, XDG_CONFIG_HOME, ...), links not resolved
    std::string what;   // "oms's plugin folder", ...
    bool oms_may_create = false;  // a missing one is made (0700) instead of refusing the run
};

// What this oms run trusts: its executable, every plugin folder searched
// (built-in, sandbox.plugin_paths, OMS_PLUGIN_PATH, as named), the default
// config file, the user's config folder and oms's state folder.
std::vector<OwnFile> own_files(const std::vector<std::string>& named_plugin_folders);

// Adds a WRITE_DENY (origin "core: oms's own files") for each own file that
// lies inside, or holds, a WRITE_ALLOW_TREE. The system temp folders are left
// to the backends' private temp folders, as in the policy guard. A missing
// own file inside a write root is created when oms owns it (config and state
// folders), else the run is refused: a command could create it and plant a
// plugin. An own file whose name goes through a link inside a write root is
// refused too: a command could point the link elsewhere before the next run.
// Throws UserError(kExitRefused).
void deny_writes_to_own_files(const std::vector<OwnFile>& own, Policy& policy);

// Hides oms's state folder (`state_folder`, resolved) from the command when
// a read or write root of the policy is it or holds it (`--ro ~/.local`),
// or when it lies outside HOME (`home`, resolved), where a backend may show
// what no root names (landlock reads outside HOME by design):
// a READ_DENY rule, origin "core: oms's state folder". It holds the unix
// sockets of the task's warm containers (a runner's, which runs commands
// there, and its published ports'), and other runs' records; a command that
// connected to another container's runner socket would run a command of its
// own in that container. A run never needs it.
void hide_state_folder(const std::string& state_folder, const std::string& home, Policy& policy);

}  // namespace oms::core
