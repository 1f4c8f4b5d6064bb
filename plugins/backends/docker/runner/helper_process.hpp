// The runner's helper processes (the Surfnet relay, the DNS responder): out
// of every command's reach as far as one uid allows. Each is non-dumpable (a
// command cannot trace it or read its memory), in a process group of its
// own (a Ctrl-C meant for the command is not for it), and ignores the
// signals a terminal or `kill` without -9 sends.
#pragma once
#include <sys/types.h>

#include <functional>
#include <vector>

namespace oms::docker::runner {

// Forks a process that runs `serve` (which does not return) and then exits.
// Attached (warm: the runner is PID 1), it is the runner's child and dies
// with it. Detached (one-shot: the calling process becomes the command), it
// is forked twice, so the command never has it as a child to wait for; the
// container's init adopts it and it ends with the container. Returns its
// pid (attached) or 1 (detached), -1 on failure (message naming `what`).
// The helper first closes `not_for_helper`: a helper started again while
// commands run must not hold their pipes open (whoever reads a command's
// output would wait for the helper's end, not the command's).
pid_t fork_helper(bool detached, const char* what, const std::function<void()>& serve,
                  const std::vector<int>& not_for_helper = {});

}  // namespace oms::docker::runner
