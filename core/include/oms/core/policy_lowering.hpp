// A backend built for plugin ABI 1.0 does not know the rule kinds of 1.1.
// Before such a backend sees a policy, the core rewrites those rules into
// kinds it knows, never into something weaker:
//  - WRITE_DENY_NAME NAME becomes one WRITE_DENY per entry of that name found
//    below the worktree now (the walk the 1.1 backends do themselves). A
//    folder the walk cannot read stops the run (fail closed).
//  - WRITE_SCRATCH_TREE PATH becomes WRITE_DENY PATH when PATH lies in a
//    write root (the 1.0 backend would otherwise write through to the host),
//    and is dropped otherwise (nothing allows writes there anyway).
// Backends built for 1.1 or newer get the policy unchanged.
#pragma once
#include "oms/core/plugin.hpp"
#include "oms/core/policy.hpp"
#include "oms/core/run_context.hpp"

namespace oms::core {

// Throws UserError(kExitRefused) when the worktree cannot be searched.
void lower_policy_for_backend(const PluginRecord& backend, const RunContext& context, Policy& policy);

}  // namespace oms::core
