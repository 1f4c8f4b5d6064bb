// One oms command (`oms run ...`, `oms explain ...`) as a child process with
// its stdout and stderr captured: how `oms mcp` serves a tool call, so every
// call is exactly what the same command line does in a terminal.
#pragma once
#include "oms/core/bounded_text.hpp"

#include <atomic>
#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace oms::core {

struct ChildRequest {
    std::vector<std::string> argv;  // argv[0]: an absolute path
    std::string cwd;
    std::optional<std::chrono::milliseconds> timeout;
    size_t output_limit = 64 * 1024;  // per stream (BoundedText)
};

struct ChildResult {
    int exit_code = -1;  // 128+N when it died of signal N
    BoundedText out{0}, err{0};
    bool timed_out = false;
    bool cancelled = false;
};

// Called about every `interval` while the child runs, with the time since it started.
struct ChildProgress {
    std::chrono::milliseconds interval{2000};
    std::function<void(std::chrono::milliseconds elapsed)> tick;
};

// Runs the child in a process group of its own, stdin /dev/null, and waits
// for it. When `cancel` becomes true or the timeout passes it gets SIGTERM
// (oms run passes it on to the command and cleans up), and its whole group
// SIGKILL if it has not ended 5 seconds later. If this thread dies, the
// child gets SIGTERM (PR_SET_PDEATHSIG). Throws when it cannot start.
ChildResult run_oms_child(const ChildRequest& request, const std::atomic<bool>& cancel, const ChildProgress& progress);

}  // namespace oms::core
