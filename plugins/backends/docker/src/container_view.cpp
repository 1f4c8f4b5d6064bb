#include "container_view.hpp"

namespace oms::docker {

bool inside(const std::string& path, const std::string& root) {
    return path == root || (path.compare(0, root.size(), root) == 0 && path.size() > root.size() &&
                            (root == "/" || path[root.size()] == '/'));
}

bool visible_in_container(const std::string& path, const RunInputs& in) {
    if (inside(path, in.worktree)) return true;
    for (const auto* mounts : {&in.read_only, &in.read_write})
        for (const std::string& root : *mounts)
            if (inside(path, root)) return true;
    return false;
}

}  // namespace oms::docker
