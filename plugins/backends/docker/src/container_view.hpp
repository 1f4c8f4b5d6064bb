// Which host paths a container shows at the same path: the worktree and the
// extra mounts (--ro, --rw), and what lies below them. Nothing else of the
// host is there.
#pragma once
#include "run_inputs.hpp"

#include <string>

namespace oms::docker {

// `path` (absolute, canonical) is below the worktree or an extra mount.
bool visible_in_container(const std::string& path, const RunInputs& in);

}  // namespace oms::docker
