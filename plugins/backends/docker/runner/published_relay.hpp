// The container's end of published ports (`--publish PORT`): the host's
// 127.0.0.1:PORT reaches the command's 127.0.0.1:PORT in a container that
// has no network but its loopback. oms (host_publisher.hpp) listens on the
// host's port and carries each connection over pub.sock in the runner's
// socket folder; a helper of the runner's listens there, reads the port
// (two bytes, big-endian) and connects to the container's 127.0.0.1:PORT,
// answering one status byte (0: connected) before the bytes flow. It takes
// connections from outside the container only: a command asking it would
// reach nothing it cannot reach itself, and is refused all the same.
#pragma once
#include <sys/types.h>

#include <vector>

namespace oms::docker::runner {

// The socket's path given with kPublishRelayFlag (runner_protocol.hpp) at
// argv[argi] (advancing argi), or nullptr when the flag is not there.
const char* publish_relay_from(int& argi, int argc, char** argv);

// Forks the helper serving `listener` (a listening unix socket; the caller
// keeps it), attached to the runner (warm) or detached (one-shot: the
// runner goes on to supervise the command; see fork_helper). Returns its
// pid (1 when detached), or -1 (message printed).
pid_t fork_publish_relay(int listener, bool detached, const std::vector<int>& not_for_helper = {});

}  // namespace oms::docker::runner
