// The session and backend of `oms run` and `oms policy`, opened on the
// worktree finish_run_options chose. When that worktree is the repository's
// top (the command starts in a folder below it) and the chosen backend was
// built for plugin ABI 1.0, which does not read the context's working_dir and
// would start the command at the top, the worktree falls back to the current
// folder (the 1.0 behaviour) and the session is opened again there.
#pragma once
#include "oms/core/backend.hpp"
#include "oms/core/run_options.hpp"
#include "oms/core/session.hpp"

#include <memory>

namespace oms::core {

struct RunSession {
    std::unique_ptr<Session> session;
    BackendChoice backend;
};

// May change options.worktree and options.working_dir (see above); prints
// the worktree on stderr when the command does not start in it.
RunSession open_run_session(RunOptions& options);

}  // namespace oms::core
