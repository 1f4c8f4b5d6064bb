// A seccomp program (classic BPF) that refuses ioctl(TIOCSTI), so a command
// cannot push keystrokes into the terminal oms runs in, and kills a system
// call from another architecture. bwrap loads it from a descriptor
// (`--seccomp FD`) right before the command starts.
// Written by hand on purpose: oms's own filters come from one libseccomp
// generator (plugins/seccomp), but this example must build against the
// installed SDK alone, with no other library; the program is a few
// instructions, refusing foreign architectures as every oms filter does.
#pragma once

namespace bwrap_example {

// A descriptor (a pipe's read end, close-on-exec) holding the program.
int tiocsti_filter_descriptor();

}  // namespace bwrap_example
