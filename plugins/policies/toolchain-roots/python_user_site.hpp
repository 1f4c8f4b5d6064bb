// pip's user site: `pip install --user` puts a tool's packages in
// <userbase>/lib/pythonX.Y/site-packages (userbase: $PYTHONUSERBASE, else
// ~/.local) and its program in <userbase>/bin, which runs them from there.
// Only these site-packages folders are lent: ~/.local as a whole also holds
// ~/.local/share (keyrings, other programs' data).
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace oms::policies {

// The existing <userbase>/lib/pythonX.Y/site-packages folders (X and Y
// digits), as found, sorted; nothing when `userbase` has no lib folder.
std::vector<std::string> python_user_sites(std::string_view userbase);

}  // namespace oms::policies
