// Publishing a port of the sandbox (ChildSpec::publish_ports): the launcher,
// in the host's network, accepts connections on the host's 127.0.0.1:PORT
// and needs, for each, a socket of the sandbox's network to carry it in.
// Only a process inside that network can make one, and an ordinary user's
// oms cannot enter it (setns needs CAP_SYS_ADMIN in oms's own user
// namespace). So the launcher asks the sandbox's init over the run's
// channel with one byte, and the init answers with a new TCP socket made in
// its namespace (SCM_RIGHTS), unconnected: the launcher connects it to the
// sandbox's 127.0.0.1:PORT. The init reads no data and holds no port; the
// command never holds the channel (CLOEXEC), so only oms asks.
// The init's half is libc only, static storage: it runs in the init, a copy
// of a threaded process.
#pragma once
#include <poll.h>
#include <stdint.h>

namespace oms::landlock::published_sockets {

// The address oms's connections to a published port come from, inside the
// sandbox (host byte order): the init's refused-connect watch tells oms's
// connect, refused while nothing listens, from a command's own.
constexpr uint32_t kRelaySource = 0x7f000002;  // 127.0.0.2

// The init: answers requests on `channel` (-1: nothing is published).
void serve_on(int channel);
int descriptor();  // the channel while it is served, else -1
// Adds the channel to `fds` while there is room; returns the new count.
int watch(pollfd* fds, int count, int capacity);
// Answers a request `fds` reported; stops at the launcher's end of stream.
void serve(const pollfd* fds, int count);

// The launcher: a new socket of the sandbox's network (non-blocking,
// close-on-exec), or -1 when the init did not answer within a second (the
// run is ending, or the init is gone).
int ask_for_socket(int channel);

}  // namespace oms::landlock::published_sockets
