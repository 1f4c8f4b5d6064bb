#include "oms/core/policy_lowering.hpp"

#include "oms/core/error.hpp"

#include <oms/abi_lowering.hpp>

namespace oms::core {

std::vector<std::string> lower_policy_for_backend(const PluginRecord& backend, const RunContext& context,
                                                  Policy& policy) {
    if (!backend.is_backend()) return {};
    std::vector<std::string> dropped;
    try {
        abi::lower_rules(policy.rules, backend.rule_kinds, context.inputs().worktree, backend.id, &dropped);
    } catch (const abi::LoweringRefused& refused) {
        const bool unsearchable = refused.cause == abi::LoweringRefused::Cause::unsearchable_worktree;
        throw UserError(unsearchable ? kExitRefused : kExitUnavailable, refused.what());
    }
    for (std::string& line : dropped) line = "oms: " + line;
    return dropped;
}

}  // namespace oms::core
