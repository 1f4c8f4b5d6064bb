// A backend handles the rule kinds it declares (oms_backend_api.rule_kinds,
// or the frozen kinds of the ABI minor it targets: 1.0's are 1 to 10). Before
// a backend sees a policy, the core rewrites every rule of another kind into
// declared kinds, never into something weaker (oms/abi_lowering.hpp, the
// rows of oms/abi_history.hpp):
//  - WRITE_DENY_NAME NAME becomes one WRITE_DENY per entry of that name found
//    below the worktree now (the walk the backends that declare it do
//    themselves). A folder the walk cannot read stops the run (fail closed).
//  - WRITE_SCRATCH_TREE PATH becomes WRITE_DENY PATH when PATH lies in a
//    write root (the backend would otherwise write through to the host),
//    and is dropped otherwise (nothing allows writes there anyway).
//  - NET_CONNECT_RUN_PORT PORT becomes NET_CONNECT_LOOPBACK PORT: the port
//    is reachable as any allowed loopback port (what it was before ABI 1.4).
//  - NET_PUBLISH_LOOPBACK PORT is dropped (the port is not published): a
//    rule that only opens the sandbox is dropped, and the user told why.
// Any other rule that cannot be rewritten so refuses the run, naming the
// backend and the kind. Backends that declare every kind get the policy unchanged.
#pragma once
#include "oms/core/plugin.hpp"
#include "oms/core/policy.hpp"
#include "oms/core/run_context.hpp"

#include <string>
#include <vector>

namespace oms::core {

// Returns the lines the user is told, one per dropped rule ("oms: port 5173
// not published: ..."), none when nothing was dropped. Throws UserError: kExitRefused when
// the worktree cannot be searched, kExitUnavailable when a rule's kind is
// neither declared nor rewritable into declared kinds.
std::vector<std::string> lower_policy_for_backend(const PluginRecord& backend, const RunContext& context,
                                                  Policy& policy);

}  // namespace oms::core
