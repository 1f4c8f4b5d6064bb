// What a path below a mount root is, found without following any link on
// the way from the root. A command can plant links in the worktree (`ln -s
// ~/.ssh .git`) and the daemon resolves a bind mount's source on the host, so
// a path oms mounts or masks must be reachable from its root through real
// folders only; otherwise the run is refused.
#pragma once
#include <string>

namespace oms::docker {

enum class PathKind { Missing, File, Directory };

// The kind of `path`, which lies at or below the folder `root` (an absolute,
// trusted path). Opens each component below `root` with O_NOFOLLOW. Throws
// sdk::Error(OMS_ERR_UNSUPPORTED) naming `what` when a component is a link,
// and sdk::Error(OMS_ERR_FAILED) when a component cannot be examined for
// another reason than being absent.
PathKind link_free_kind(const std::string& root, const std::string& path, const std::string& what);

// The same walk, with the identity of what it found (for a Missing path,
// device and inode are 0).
struct PathIdentity {
    PathKind kind = PathKind::Missing;
    unsigned long long device = 0, inode = 0;
};
PathIdentity link_free_identity(const std::string& root, const std::string& path, const std::string& what);

}  // namespace oms::docker
