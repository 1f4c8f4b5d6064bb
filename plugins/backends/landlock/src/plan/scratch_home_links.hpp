// The private HOME's way to the scratch trees under the real HOME. A tool
// finds its cache by a path under HOME (npm: ~/.npm/_cacache), and the
// private HOME has none; this backend keeps each scratch tree as a per-run
// overlay, so it links <private HOME>/<the tree's path below HOME> to the
// tree: npm then reads what the user's own npm stored, and what it writes
// there lands in the run's layer. Only a backend with such layers may do
// this (one that denies the writes instead would make npm fail), which is
// why it is done here and not by the core.
#pragma once
#include <string>
#include <vector>

namespace oms::landlock {

// For each tree of `scratch_trees` (real paths) strictly below
// `real_home`, makes the link in `private_home`: the folders on the way are
// made (0700) or entered without following a link, and a tree whose way
// holds a link or an existing entry (the private HOME's `.cargo` is a link
// to ~/.cargo already) is left alone. Returns one line per tree it could
// not link for another reason; none when all went well.
std::vector<std::string> link_scratch_trees_into_private_home(const std::string& real_home,
                                                              const std::string& private_home,
                                                              const std::vector<std::string>& scratch_trees);

}  // namespace oms::landlock
