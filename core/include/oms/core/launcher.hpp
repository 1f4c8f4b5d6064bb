// Start the command through the backend, forward SIGINT/SIGTERM/SIGHUP to it
// while it runs, and return its exit status (128+N for signal N).
#pragma once
#include "oms/core/backend.hpp"
#include "oms/core/policy.hpp"
#include "oms/core/run_context.hpp"

namespace oms::core {

// Throws UserError (kExitUnavailable) when the backend cannot start the
// command: fail closed, nothing ran.
int launch(const BackendChoice& backend, const RunContext& context, Policy& policy);

}  // namespace oms::core
