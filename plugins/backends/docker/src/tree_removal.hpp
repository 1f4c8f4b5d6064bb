// Removes a folder the container could write (a warm container's socket
// folder) with everything a command left in it, without following links and
// restoring the rights a command may have taken away from its subfolders.
#pragma once
#include <string>

namespace oms::docker {

// True when `path` is gone afterwards (or was never there).
bool remove_tree(const std::string& path);

}  // namespace oms::docker
