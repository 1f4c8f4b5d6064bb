// Where the keypair-scan caches live: <state_dir>/landlock-scan, a 0700
// folder of ours. A cache is only worth trusting if the sandboxed command
// cannot rewrite it, so no folder is given when it would lie in (or hold) a
// write root of the run: the roots are then walked in full.
#pragma once
#include <string>
#include <vector>

namespace oms::landlock {

// Empty when there is no usable cache folder (no state folder, a write root
// reaches it, or it cannot be created as a private folder of ours).
std::string scan_cache_dir(const std::string& state_dir, const std::vector<std::string>& write_roots);

}  // namespace oms::landlock
