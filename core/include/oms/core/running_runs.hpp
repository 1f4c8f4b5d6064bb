// The runs going on now, as `oms explain --running` shows them: each run
// folder of the caller's in the run folders' base (the caller's TMPDIR)
// whose oms still holds its .owner lock, with what that run has refused so
// far (its refusals file, which the backend and oms's proxy append to while
// the command runs). oms writes a small description of the run (JSON) into
// the .owner file it holds the lock on, before the command starts: one file
// for both, one entry fewer made and removed per run. No command can write
// either file (the run folder's top is no write root of any backend).
#pragma once
#include "oms/core/violation_log.hpp"

#include <string>
#include <vector>

namespace oms::core {

struct RunningRun {
    std::vector<std::string> command;
    std::string backend, worktree, started;  // started: UTC, ISO 8601
    long pid = 0;                            // the oms that runs it
    std::vector<Violation> refused;          // the first kMaxKept of them
    size_t refused_count = 0;
};

// Writes the description into the run folder's .owner, open and still
// empty (RunDir::owner_fd). False when it cannot: the run goes on,
// `--running` then lists it without.
bool write_run_about(int owner_file, const std::vector<std::string>& command, const std::string& backend,
                     const std::string& worktree);

// The runs of this user going on now in `base`, oldest first.
std::vector<RunningRun> running_runs(const std::string& base);

}  // namespace oms::core
