// Descriptors handed between the sandbox's side and oms's over the run's
// channel (a unix socket pair): one tag byte, with the descriptors as
// SCM_RIGHTS. The sandbox's init sends its loopback listeners and fresh
// sockets for published ports. Stack buffers and system calls only: the
// init is a child of a threaded oms, where only async-signal-safe calls
// are safe.
#pragma once
#include <stddef.h>
#include <sys/types.h>

namespace oms::landlock {

// The most descriptors one message carries.
constexpr size_t kMaxPassedDescriptors = 64;

// The tag of the init's message with its loopback listeners.
constexpr char kListenersTag = 'L';
// The tag of the child's first message when ChildSpec::tell_network_entered:
// it is in the network it runs in (the task's, or a new one of its own).
constexpr char kNetworkEnteredTag = 'N';

// Sends `tag` with fds[0..count) (count at most kMaxPassedDescriptors; none
// is fine). Retries on EINTR. Returns sendmsg's result: 1 when sent.
ssize_t send_with_descriptors(int channel, char tag, const int* fds, size_t count, int flags);

// Receives one byte into `tag` and at most `capacity` descriptors (made
// close-on-exec) into `fds`; any past `capacity` are closed. Returns how
// many came (more than `capacity` when some were closed or the kernel cut
// the message short: a caller expecting an exact count sees a wrong one),
// or -1 when no byte came (errno set, or 0 at the peer's close), with every
// descriptor that came closed.
ssize_t receive_with_descriptors(int channel, char& tag, int* fds, size_t capacity, int flags);

}  // namespace oms::landlock
