// What commands leave behind in a warm container, and how the runner clears
// it: a command's process group when it ends, and every process that escaped
// its group (the runner is their subreaper) once no command runs.
#pragma once
#include <sys/types.h>

#include <initializer_list>
#include <vector>

namespace oms::docker::runner {

// Kills what is left in the process group `group`; true when there was any.
bool kill_group(pid_t group);

// How often the container's pids limit refused a fork (the cgroup's
// pids.events "max" count, v1 or v2), or -1 when it cannot be read.
long pids_limit_hits();

// With no command running (`handlers` are the live per-command handler
// processes, left alone), kills every other child of the runner and theirs.
void kill_leftovers(const std::vector<pid_t>& handlers);

// Reaps ended handlers and leftovers; forgets the handlers that ended, and
// sets each *watched to 0 when that process ended (the runner's helpers).
void reap(std::vector<pid_t>& handlers, std::initializer_list<pid_t*> watched = {});

}  // namespace oms::docker::runner
