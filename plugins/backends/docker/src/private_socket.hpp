// A unix socket oms listens on in a folder a command may be able to write
// (the socket folder is the container's user's when oms is not root). The
// socket is made and given its mode in a fresh folder only oms can write,
// then renamed to its place: a chmod at the shared path would follow a link a
// command swapped in after bind (a host file of oms's user made 0666), and
// fchmod on the socket's descriptor does not do instead (it changes the
// socket's own inode, not the file bind made). rename replaces whatever is
// at the name, a link included, without following it.
#pragma once
#include <sys/types.h>

#include <string>

namespace oms::docker {

// Listens on `path` with `mode`; the private folder is made next to the
// socket's folder (in its parent, which must be oms's alone). Throws
// sdk::Error(OMS_ERR_FAILED) naming `what` and the step that failed.
int listen_privately(const std::string& path, mode_t mode, const std::string& what);

// The same for a socket of `type` (SOCK_STREAM: listening; SOCK_DGRAM: bound).
int bind_privately(const std::string& path, int type, mode_t mode, const std::string& what);

}  // namespace oms::docker
