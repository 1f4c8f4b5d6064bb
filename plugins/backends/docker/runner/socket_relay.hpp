// A bounded, single-threaded byte relay between pairs of stream sockets, used
// on both ends of the Surfnet relay: inside the container (127.0.0.1:PORT ->
// the unix socket oms serves) and in oms (that unix socket -> the host's
// 127.0.0.1:PORT). One poll loop carries every connection (no thread per
// connection); past `max_pairs` open pairs a new connection is reset at once.
//
// Wire format on the unix socket: the inner side sends the port first (two
// bytes, big-endian); oms connects only when that port is one it relays.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

namespace oms::docker::relay {

inline constexpr size_t kMaxPairs = 64;
inline constexpr size_t kBufferBytes = 16 * 1024;

// Opens the far end for a connection accepted on listener `index`; returns
// its descriptor or -1 (the accepted connection is then reset).
using OpenFarEnd = std::function<int(int accepted, size_t index)>;

// Relays until `stop_fd` is readable (or forever when it is -1). The
// listeners must be listening sockets; they stay open (the caller owns them).
void run_relay(const std::vector<int>& listeners, const OpenFarEnd& open_far_end, int stop_fd,
               size_t max_pairs = kMaxPairs);

// Closes `fd` so that its peer sees a reset, not a clean end.
void close_with_reset(int fd);

// Listens on 127.0.0.1:`port` (TCP); -1 with errno on failure.
int listen_loopback(uint16_t port);

}  // namespace oms::docker::relay
