// The programs of a PATH folder under HOME that are symbolic links, like
// pipx's ~/.local/bin/black -> ~/.local/share/pipx/venvs/black/bin/black or
// npm's ~/.npm-global/bin/tsc -> ../lib/node_modules/typescript/bin/tsc:
// the PATH entry alone lends the link, not the install it runs from.
#pragma once
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace oms::policies {

// The entries of `folder` that are symbolic links (lstat; nothing is
// followed here), sorted; at most `limit` entries of the folder are looked at.
std::vector<std::string> program_links(std::string_view folder, size_t limit = 4096);

}  // namespace oms::policies
