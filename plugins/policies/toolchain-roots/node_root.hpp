// Where node is installed: version managers (nvm, volta, fnm) put node under
// HOME, and node reads its own lib/ next to bin/, so the whole install prefix
// must be readable, not just the PATH entry (which may be a shim folder).
#pragma once
#include <optional>
#include <string>
#include <string_view>

namespace oms::policies {

// The first executable `node` in the ':'-separated `path_variable` (relative
// and empty entries skipped, as oms never runs from them), as found there:
// the caller checks where it leads before trusting it.
std::optional<std::string> find_node(std::string_view path_variable);

// The install prefix of a resolved node binary: the parent of its folder when
// that folder is named "bin" (".../v20/bin/node" gives ".../v20"), otherwise
// the folder holding the binary.
std::string node_install_root(std::string_view resolved_node);

}  // namespace oms::policies
