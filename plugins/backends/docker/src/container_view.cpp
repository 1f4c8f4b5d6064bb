#include "container_view.hpp"

#include <oms/path.hpp>

namespace oms::docker {

bool visible_in_container(const std::string& path, const RunInputs& in) {
    if (sdk::path::is_inside(path, in.worktree)) return true;
    for (const auto* mounts : {&in.read_only, &in.read_write})
        for (const std::string& root : *mounts)
            if (sdk::path::is_inside(path, root)) return true;
    return false;
}

}  // namespace oms::docker
