// `oms doctor --probe`: real attempts inside the active backend, each beside
// a positive control, on a throw-away fake HOME and worktree (the user's own
// files are never touched). A rule passes when the forbidden thing failed
// AND its control worked, so a broken probe cannot look like a good sandbox.
#pragma once
#include "oms/core/backend.hpp"
#include "oms/core/cli.hpp"
#include "oms/core/session.hpp"

#include <string>
#include <vector>

namespace oms::core {

struct CanaryResult {
    std::string rule;
    bool passed = false;
    std::string detail;
};

std::vector<CanaryResult> run_canaries(const Session& session, const BackendChoice& backend);
std::string format_canaries(const std::vector<CanaryResult>& results);

// The hidden `oms __canary` helper the canaries run inside the sandbox:
//   read FILE | connect HOST PORT
int command_canary(const Args& args);

}  // namespace oms::core
