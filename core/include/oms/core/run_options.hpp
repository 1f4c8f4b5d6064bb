// The options shared by `oms run` and `oms policy`, and how they become the
// inputs of a run (flags over config over defaults).
#pragma once
#include "oms/core/run_context.hpp"
#include "oms/core/run_dir.hpp"
#include "oms/core/session.hpp"

#include <boost/program_options/options_description.hpp>
#include <optional>
#include <string>
#include <vector>

namespace oms::core {

struct RunOptions {
    std::optional<std::string> sandbox;
    std::string worktree;
    bool worktree_defaulted = false;  // no --worktree: the repository holding the current folder
    std::string working_dir;  // where the command starts (--cwd, else the default); empty: the worktree
    std::vector<std::string> read_only, read_write, pinned;
    std::vector<std::string> env;  // --env NAME or NAME=VALUE
    std::vector<std::string> allow_hosts;  // --allow-host NAME[:PORT]
    std::vector<std::string> publish;      // --publish PORT
    std::optional<std::string> surfpool;  // --surfpool: the command is this trusted binary
    bool yes = false;
    bool best_effort = false;
    bool json = false;
    bool quiet = false;  // no informational oms line (worktree note, failure hint)
    std::vector<std::string> command;
};

// Adds --sandbox, --worktree, --cwd, --ro, --rw, --pinned, --surfpool, --env, --allow-host, --publish, --best-effort to `options`.
void add_run_options(boost::program_options::options_description& options, RunOptions& values);
// Expands comma lists in --pinned, defaults the worktree (default_worktree:
// the repository holding the current folder) and checks it is a folder that
// may be one (checked_worktree). A --worktree given is also the working
// folder; a defaulted one keeps the current folder as the working folder.
// --cwd names the working folder either way (make_run_inputs checks it lies
// inside the worktree).
void finish_run_options(RunOptions& values);

// Throws UserError(kExitRefused) when options.working_dir is not inside the
// session's worktree.
RunInputs make_run_inputs(const Session& session, const RunOptions& options, const RunDir& run_dir);

}  // namespace oms::core
