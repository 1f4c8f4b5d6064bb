// Checks over the assembled policy, whatever the policy plugins did (a third
// party plugin, or a bug in ours): defense in depth for the rules that would
// open HOME or a secret.
//  - A READ_ALLOW_TREE that is `/`, HOME, a folder above HOME, lies inside a
//    READ_DENY path, or holds a READ_DENY folder (the worktree aside, where
//    a config may deny a folder) is DROPPED with a warning naming its origin:
//    reads only get narrower, the command still runs.
//  - A WRITE_ALLOW_TREE with the same faults REFUSES the run: writes there
//    would change HOME or a secret on the host. The system temp folders
//    (/tmp, /var/tmp) are exempt from "above HOME": HOME inside a temp folder
//    is the backends' private temp folders' business.
#pragma once
#include "oms/core/policy.hpp"
#include "oms/core/registry.hpp"
#include "oms/core/run_context.hpp"

namespace oms::core {

// Applies the rules above to `policy` in place; throws UserError(kExitRefused).
void guard_assembled_policy(const RunContext& context, Policy& policy);

// A backend would not enforce a rule of a kind it does not declare (a 1.0
// backend skipping WRITE_DENY_NAME in a `default:` branch): a deny it drops
// is a hole, so the run is refused (fail closed). The core lowers such rules
// first (policy_lowering.hpp); this is the net for any that are left.
// Throws UserError(kExitUnavailable) naming the backend, its ABI and the rule.
void refuse_rules_unknown_to_backend(const PluginRecord& backend, const Policy& policy);

}  // namespace oms::core
