// `oms doctor --probe`: real attempts inside the active backend, each beside
// a positive control, on a throw-away fake HOME and worktree (the user's own
// files are never touched). A rule passes when the forbidden thing failed
// AND its control worked, so a broken probe cannot look like a good sandbox;
// when the control failed the rule is inconclusive (neither pass nor fail).
#pragma once
#include "oms/core/backend.hpp"
#include "oms/core/cli.hpp"
#include "oms/core/session.hpp"

#include <string>
#include <vector>

namespace oms::core {

enum class CanaryStatus {
    pass,          // blocked, and the positive control worked
    fail,          // the forbidden attempt got through
    inconclusive,  // the positive control failed: the probe cannot tell
    not_granted,   // the allowed half fails as the backend declares (a MISSING line
                   // naming the rule): stricter than the policy; the deny half passed
};

struct CanaryResult {
    std::string rule;
    CanaryStatus status = CanaryStatus::fail;
    std::string detail;
};

// `oms doctor --probe`'s exit status for these results: 0 every rule passed,
// 1 any failed, kExitInconclusive none failed but some could not be told.
// "not granted" counts as neither: the backend runs stricter, as it declares.
int canaries_exit_code(const std::vector<CanaryResult>& results);
const char* status_label(CanaryStatus status);  // as printed: pass, FAIL, inconclusive, not granted
const char* status_name(CanaryStatus status);   // for JSON: pass, fail, inconclusive, not_granted

std::vector<CanaryResult> run_canaries(const Session& session, const BackendChoice& backend);
std::string format_canaries(const std::vector<CanaryResult>& results);

// The hidden `oms __canary` helper the canaries run inside the sandbox:
//   read FILE | connect HOST PORT
int command_canary(const Args& args);

}  // namespace oms::core
