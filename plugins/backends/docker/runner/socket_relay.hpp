// A bounded, single-threaded byte relay between pairs of stream sockets, used
// on both ends of the Surfnet relay: inside the container (127.0.0.1:PORT ->
// the unix socket oms serves) and in oms (that unix socket -> the host's
// 127.0.0.1:PORT). One poll loop carries every connection (no thread per
// connection); past `max_pairs` open pairs a new connection is reset at once,
// and a far end that is not set up within kSetupSeconds is reset too.
//
// Wire format on the unix socket: the inner side sends the port first (two
// bytes, big-endian); oms connects only when that port is one it relays.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace oms::docker::relay {

inline constexpr size_t kMaxPairs = 64;
inline constexpr size_t kBufferBytes = 16 * 1024;

// How far the far end is when the opener returns it. Neither wait blocks
// the loop: other connections keep flowing meanwhile.
enum class FarState {
    Ready,           // connected: relay at once
    Connecting,      // a non-blocking TCP connect in progress (oms's side); once
                     // it completes a status byte 0 goes to the accepted side
                     // first, if it fails the accepted side is closed
    AwaitingStatus,  // the far end answers one status byte first (the
                     // container's side); anything but 0, or an end, resets
};
struct FarEnd {
    int fd = -1;  // -1: the accepted connection is reset
    FarState state = FarState::Ready;
    // Called from the loop when a Connecting far end's connect fails (oms
    // reports it as a refusal); may be empty.
    std::function<void()> on_connect_failed;
};

// Opens the far end for a connection accepted on listener `index`, once
// its first `request_bytes` bytes (see run_relay) have arrived in `request`.
using OpenFarEnd = std::function<FarEnd(int accepted, size_t index, const std::string& request)>;

// How long a far end may stay Connecting or AwaitingStatus.
inline constexpr int kSetupSeconds = 3;

// Relays until `stop_fd` is readable (or forever when it is -1). The
// listeners must be listening sockets; they stay open (the caller owns them).
// With `request_bytes`, an accepted connection first sends that many bytes
// (read in the loop, within kSetupSeconds, counted against `max_pairs`)
// before its far end is opened.
void run_relay(const std::vector<int>& listeners, const OpenFarEnd& open_far_end, int stop_fd,
               size_t request_bytes = 0, size_t max_pairs = kMaxPairs);

// The far end over the unix socket at `socket_path` whose server relays
// `port` (the two bytes of the wire format above) and answers one status
// byte (0: it reached its listener), which the loop reads without waiting
// here: AwaitingStatus. Non-blocking, so a full backlog there fails at once
// instead of holding up every other connection; {} when it cannot be asked.
// Used where connections start: inside the container (the Surfnet relay, to
// oms's relay.sock) and in oms (a published port, to the runner's pub.sock).
FarEnd open_through_unix_socket(const char* socket_path, uint16_t port);

// A non-blocking TCP connect to 127.0.0.1:`port`, started (a Connecting far
// end for the loop to complete): the socket, or -1 when it failed at once.
int start_loopback_connect(uint16_t port);

// Closes `fd` so that its peer sees a reset, not a clean end.
void close_with_reset(int fd);

// Listens on 127.0.0.1:`port` (TCP); -1 with errno on failure.
int listen_loopback(uint16_t port);

}  // namespace oms::docker::relay
