// Descriptors handed between the sandbox's side and oms's over the run's
// channel (a unix socket pair): one tag byte, with the descriptors as
// SCM_RIGHTS. The child sends its loopback listeners, the init fresh
// sockets for published ports. Stack buffers and system calls only: the
// child calls this before exec, sharing oms's memory.
#pragma once
#include <stddef.h>
#include <sys/types.h>

namespace oms::landlock {

// The most descriptors one message carries.
constexpr size_t kMaxPassedDescriptors = 64;

// Sends `tag` with fds[0..count) (count at most kMaxPassedDescriptors; none
// is fine). Retries on EINTR. Returns sendmsg's result: 1 when sent.
ssize_t send_with_descriptors(int channel, char tag, const int* fds, size_t count, int flags);

// Receives one byte into `tag` and at most `capacity` descriptors (made
// close-on-exec) into `fds`; descriptors past `capacity` are closed by the
// kernel. Returns how many arrived, or -1 when no byte came (errno set, or
// 0 at the peer's close).
ssize_t receive_with_descriptors(int channel, char& tag, int* fds, size_t capacity, int flags);

}  // namespace oms::landlock
