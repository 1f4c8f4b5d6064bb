// A seccomp program (classic BPF) that refuses ioctl(TIOCSTI), so a command
// cannot push keystrokes into the terminal oms runs in, and kills a system
// call from another architecture. bwrap loads it from a descriptor
// (`--seccomp FD`) right before the command starts.
#pragma once

namespace bwrap_example {

// A descriptor (a pipe's read end, close-on-exec) holding the program.
int tiocsti_filter_descriptor();

}  // namespace bwrap_example
