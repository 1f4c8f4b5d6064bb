// The docker CLI is started on the host, unconfined, for every one-shot run
// and every new warm container: the file oms runs must not be one a command
// could have written. A PATH that holds a worktree folder (an activated
// `.venv/bin`, `node_modules/.bin` added by `npm run`) would otherwise let a
// command plant `docker` there for the next run to execute.
#pragma once
#include "run_inputs.hpp"

#include <string>
#include <vector>

namespace oms::docker {

// Throws sdk::Error (OMS_ERR_FAILED) naming the file and the folder when the
// CLI as found, or the file it resolves to, lies in a folder a command can
// write: the worktree, a read-write mount, the run's private HOME or temp
// folder, or a system temp folder.
// The host folders a docker run's command can write and that outlive it or
// are shared with oms: the worktree, the read-write mounts, the run's
// private HOME and temp folder, each as named and as it resolves. (The
// container's /tmp is its own tmpfs, not the host's.)
std::vector<std::string> folders_a_run_writes(const RunInputs& in);

void refuse_command_written_cli(const std::string& cli, const RunInputs& in);

}  // namespace oms::docker
