// What commands leave behind in a container, and how the runner clears it.
// The runner is the container's PID 1: no process inside can signal, stop or
// trace it, so it alone decides what dies. Each command is a session of its
// own (setsid) under the runner; when a command ends, every process in the
// container is killed that is not the runner, one of its helpers, or part
// of another live command: a descendant of it (parent links), or still in
// its session or process group. A leftover that double-forked, setsid()
// itself or changed its group has none of these (its parent is the runner
// once its own parents are gone), so it dies with its command's status.
#pragma once
#include <sys/types.h>

#include <functional>
#include <vector>

namespace oms::docker::runner {

// How often the container's pids limit refused a fork (the cgroup's
// pids.events "max" count, v1 or v2), or -1 when it cannot be read.
long pids_limit_hits();

// Kills, generation by generation, every process of the container that
// `kept` does not claim: `kept` are the live commands' and helpers' pids
// (each command is also its session and process group id). `reap` is called
// between rounds (the killed processes are the runner's children or become
// them). Processes started from outside the runner (`docker exec`, whose
// parent is outside the container) are left to their own tree. True when it
// killed any.
bool kill_unclaimed(const std::vector<pid_t>& kept, const std::function<void()>& reap);

}  // namespace oms::docker::runner
