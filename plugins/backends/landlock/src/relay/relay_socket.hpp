// Starting and stopping a relay listener so that the command can never take
// its port. In a private network namespace the command may bind and listen
// on any other loopback port (Landlock does not filter ports there); the
// relayed ports are kept by the kernel's bind rules instead: while stopped,
// the relay socket has no SO_REUSEADDR, so every other bind of the port
// conflicts (EADDRINUSE), whatever options the binder sets; while listening
// it conflicts anyway. SO_REUSEADDR is set again just before listen(): the
// connections the relay accepted earlier hold the port too and would make
// listen() fail otherwise. The socket must first be bound without it, so the
// kernel's fast path for "everyone reuses" is off for the port's life.
// Plain system calls only: the forked child uses them too.
#pragma once
#include <sys/socket.h>

namespace oms::landlock {

inline bool relay_start_listening(int fd, int backlog) {
    int one = 1;
    return setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) == 0 && listen(fd, backlog) == 0;
}

inline void relay_stop_listening(int fd) {
    shutdown(fd, SHUT_RD);
    int zero = 0;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &zero, sizeof zero);
}

}  // namespace oms::landlock
