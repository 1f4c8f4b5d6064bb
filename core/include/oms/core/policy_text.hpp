// The text `oms policy` prints (rules with origins, environment, backend and
// its rendering); `oms verify --plan` prints the same after its own plan.
#pragma once
#include "oms/core/backend.hpp"
#include "oms/core/policy.hpp"
#include "oms/core/run_context.hpp"

namespace oms::core {

void print_policy_text(const RunContext& context, const Policy& policy, const BackendChoice& backend,
                       const BackendReport& rendering);

}  // namespace oms::core
