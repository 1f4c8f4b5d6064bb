// The container user when neither [plugin.docker] user nor the manifest
// names one.
#pragma once
#include <oms/sdk.h>

#include <string>

namespace oms::docker {

// The worktree's owner ("uid:gid"), so the command can write the worktree it
// is given, with the files it creates owned as if the user had made them on
// the host; a group of 0 is replaced by the uid. Throws sdk::Error(failure)
// when root owns the worktree (or it cannot be looked at): a container never
// runs as root, and any other user could not write it, so the run is refused
// with what to set rather than started as a user who cannot do the work.
std::string default_user_for(const std::string& worktree, oms_status failure);

}  // namespace oms::docker
