// After a failed command: whether the program it named lies under HOME
// outside every folder lent to commands (a tool of the user's that no
// detection of toolchain-roots covers), so the failure line can say what was
// hidden and which key lends it. Host side, metadata only (stat, realpath).
#pragma once
#include "oms/core/policy.hpp"

#include <string>

namespace oms::core {

// "<name> (<path>) lies under HOME outside the folders lent to commands;
// [plugin.toolchain-roots] extra = ["<folder>"] (or --ro <folder>) lends
// <folder> read-only" (the path only when the name was it), or "" when the program is not found on the command's
// PATH, lies outside HOME, or in a folder lent or denied already. <folder> is
// the install the program runs from (<folder>/bin/<name>), never HOME itself.
std::string hidden_tool_note(const std::string& argv0, const Policy& policy, const std::string& home,
                             const std::string& working_dir);

}  // namespace oms::core
