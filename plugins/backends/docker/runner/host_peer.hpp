// Who may ask the warm runner for a command: only oms on the host. The
// runner's socket is reachable from inside the container too (its folder is
// mounted at /.oms/sock so the runner can listen there), and a command that
// asked for a command of its own would get a process the runner treats as a
// task's command: it outlives the run that started it (leftovers are killed
// only while no command runs), so it could rewrite HOME after the next
// command's seed or act in the worktree while later commands run.
#pragma once

namespace oms::docker::runner {

// True when the peer of `connection` is outside the container's PID
// namespace: the kernel reports a peer it cannot name there as pid 0, while
// every process of the container has a pid of its own.
bool peer_is_outside_container(int connection);

}  // namespace oms::docker::runner
