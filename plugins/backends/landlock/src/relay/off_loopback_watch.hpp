// Where a command tried to go off the sandbox's loopback: in a run with its
// own network namespace the only interface is the private `lo`, so the
// kernel answers a connect (or a datagram) to any other address with
// ENETUNREACH at once, and no packet is ever made that the loopback watch
// (refused_connect_watch.hpp) could see. The command therefore runs under
// one more seccomp filter (kConnectWatch, plugins/seccomp) whose
// connect waits for the filter's listener,
// which the run's init holds (oms/connect_watch.hpp): it reads the address
// from the caller's memory, lets the call go on unchanged (the kernel
// decides, as without the watch), and reports an address off the loopback
// to the run's refusal log (source "route"). Report only: when the
// filter or the hand-over fails, the run goes on unwatched, and the refusal
// still holds.
//
// The steps, in order: prepare() in the init before the command starts;
// install_in_command() in the command after no_new_privs; take_listener() in
// the init once the command exec'd (or ended); then watch() and serve() in
// the init's loop. libc only, static storage: init and command are copies
// of a threaded process.
#pragma once
#include <poll.h>

namespace oms::landlock::off_loopback_watch {

// Opens the channel the listener travels on; false when there is no
// refusal log to report to (refusal_reports::write_to comes first).
bool prepare();
// The filter, with a listener sent to the init; nothing when not prepared
// or when the kernel refuses it. Closes the command's end of the channel.
void install_in_command();
// The listener, or -1 when the command sent none. Waits for the command's
// message or the channel's end (its copy closes at exec or exit).
void take_listener();
int descriptor();
// Adds the listener to `fds` while there is room; returns the new count.
int watch(pollfd* fds, int count, int capacity);
// Answers every notification ready; stops watching once no process is left
// under the filter.
void serve(const pollfd* fds, int count);

}  // namespace oms::landlock::off_loopback_watch
