// The runner of a one-shot container: its PID 1 (no --init), the command's
// parent, and what ends the container when oms goes away. It connects to
// oms's lifeline (src/one_shot_lifeline.hpp) before the command starts; when
// that connection breaks (oms ended, however), it exits, and the kernel kills
// every other process of the container with it. As PID 1 it gets no signal a
// process inside sends, so the command cannot stop or kill it.
//
// The signals the docker CLI proxies (sent from outside the container) are
// forwarded to the command; those the container's terminal generates reach
// the command's process group directly and are not sent twice. The runner
// exits with the command's status (128+N when signal N ended it).
#pragma once
#include <functional>

namespace oms::docker::runner {

// "--lifeline=PATH" at argv[argi] (taken, argi moves past it), or nullptr.
const char* lifeline_from(int& argi, int argc, char** argv);

// Connects to `lifeline`, forks `start_command` (which must not return) and
// watches both; never returns. Exits 125 when the lifeline cannot be reached.
// With `connect_reports` (the path of oms's lookups.sock) the command's
// connects are watched (command_connects.hpp) and the refused ones sent
// there as lines; start_command gets the channel for its listener (-1: not
// watched).
[[noreturn]] void supervise(const char* lifeline, const char* connect_reports,
                            const std::function<void(int connect_watch_channel)>& start_command);

}  // namespace oms::docker::runner
