// oms's docker folder below its state folder ($XDG_STATE_HOME/oms/docker):
// the warm runners' socket folders, the one-shot relay folders and the
// sandbox's resolv.conf live there, 0700, out of other host users' reach.
#pragma once
#include <sys/types.h>

#include <string>

namespace oms::docker {

// A folder of ours: created when missing, refused when it is a symlink or
// belongs to someone else (another user could otherwise plant a socket or a
// file in it); set to `mode`. Throws sdk::Error naming the folder.
void own_folder(const std::string& path, mode_t mode);

// <state_dir>/docker, made (with state_dir) when missing; `what` names the
// feature that needs it in the error when there is no state folder.
std::string docker_state_folder(const std::string& state_dir, const std::string& what);

// A folder bind-mounted into a container where the container's user
// (`user`, "uid:gid") makes a socket: the runner's socket folder of a warm
// container, a one-shot run's publish folder. 0700 and the caller's when the
// container runs as the caller; lent to the container's user when root runs
// oms (the 0700 docker folder above it keeps other users out); open to the
// container's other uid only when oms can do neither. Made when missing;
// throws sdk::Error(OMS_ERR_FAILED) when it is another's or a link.
void lend_to_container(const std::string& path, const std::string& user);

}  // namespace oms::docker
