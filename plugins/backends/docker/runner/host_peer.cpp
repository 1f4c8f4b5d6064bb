#include "host_peer.hpp"

#include <sys/socket.h>

namespace oms::docker::runner {

bool peer_is_outside_container(int connection) {
    ucred peer{};
    socklen_t size = sizeof peer;
    if (getsockopt(connection, SOL_SOCKET, SO_PEERCRED, &peer, &size) != 0 || size != sizeof peer) return false;
    return peer.pid == 0;
}

}  // namespace oms::docker::runner
