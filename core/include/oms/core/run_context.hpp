// The owned data behind an oms_run_context, and the view plugins borrow.
#pragma once
#include <oms/sdk.h>

#include <string>
#include <vector>

namespace oms::core {

struct RunInputs {
    std::string platform;
    std::string home, worktree, private_home, temp_dir, state_dir, surfpool;
    std::string working_dir;  // where the command starts; empty: the worktree
    std::string refusal_log;  // the run folder's refusals file; empty: none
    std::vector<std::string> parent_env, read_only, read_write, pinned, argv;
    uint32_t flags = 0;
    std::vector<std::string> env_options;  // --env NAME[=VALUE], applied after the policy plugins
};

class RunContext {
public:
    explicit RunContext(RunInputs inputs);
    RunContext(const RunContext&) = delete;
    RunContext& operator=(const RunContext&) = delete;
    const RunInputs& inputs() const { return inputs_; }
    const oms_run_context* view() const { return &view_; }
    // The view a backend gets: only the run flags it declares it understands
    // (the FLAGS rule of sdk.h). Valid until the next call.
    const oms_run_context* view_for_backend(uint32_t understood_run_flags) const;

private:
    RunInputs inputs_;
    std::vector<const char*> env_, ro_, rw_, pinned_, argv_;
    oms_run_context view_{};
    mutable oms_run_context backend_view_{};
};

// "linux" or "macos": the platform oms was built for.
const char* current_platform();
// The caller's environment as "NAME=value" entries.
std::vector<std::string> current_environment();

}  // namespace oms::core
