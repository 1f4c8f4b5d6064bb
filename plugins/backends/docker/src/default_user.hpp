// The container user when neither [plugin.docker] user nor the manifest
// names one.
#pragma once
#include <string>

namespace oms::docker {

// The worktree's owner ("uid:gid"), so the command can write the worktree it
// is given, with the files it creates owned as if the user had made them on
// the host. A worktree owned by root (uid 0) gets 65534:65534 instead: a
// container never runs as root. A group of 0 is replaced by the uid.
std::string default_user_for(const std::string& worktree);

}  // namespace oms::docker
