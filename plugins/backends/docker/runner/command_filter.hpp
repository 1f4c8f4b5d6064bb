// The restrictions a command gets from the runner on top of the container's
// own (Docker's seccomp profile, no capabilities, no-new-privileges): a file
// mode mask like a one-shot container's, and a seccomp filter refusing the
// calls that reach into another process of the same uid (ptrace,
// process_vm_readv/writev: the runner is such a process) and io_uring (a
// large kernel surface Docker's default profile leaves open on older
// versions). Seccomp filters stack: the command cannot remove this one.
#pragma once

namespace oms::docker::runner {

// Sets umask 022, no_new_privs and the filter on the calling process, and
// with a `connect_watch_channel` the connect watch (command_connects.hpp).
// Returns false (errno set) when the filter cannot be installed: the caller
// must not run the command then. The watch is report only: its failure is no
// failure here.
bool restrict_command(int connect_watch_channel);

}  // namespace oms::docker::runner
