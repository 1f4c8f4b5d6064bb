// Runs one command through the backend as the oms host does: spawn with
// pipes for stdin/stdout/stderr, an optional action while it runs (send a
// signal), wait with a deadline (SIGKILL through the backend after it),
// release.
#pragma once
#include "loaded_backend.hpp"
#include "scene.hpp"

#include <functional>
#include <string>
#include <vector>

namespace oms::backend_check {

struct Outcome {
    bool spawned = false;
    std::string spawn_error;  // the backend's reason when spawn failed
    oms_status spawn_status = OMS_OK;
    int status = -1;          // the exit status wait() gave
    bool timed_out = false;
    std::string out, err;
};

struct CommandRun {
    std::vector<std::string> argv;
    std::string stdin_text;
    // Called after spawn succeeded, with a function that signals the run.
    std::function<void(const std::function<void(int)>&)> while_running;
    int timeout_seconds = 20;
};

Outcome run_command(const LoadedBackend& backend, Scene& scene, const CommandRun& command);

}  // namespace oms::backend_check
