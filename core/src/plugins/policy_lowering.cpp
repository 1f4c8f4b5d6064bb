#include "oms/core/policy_lowering.hpp"

#include "oms/core/error.hpp"

#include <oms/abi_lowering.hpp>

namespace oms::core {

std::vector<std::string> lower_policy_for_backend(const PluginRecord& backend, const RunContext& context,
                                                  Policy& policy) {
    if (!backend.is_backend()) return {};
    try {
        return abi::lower_rules(policy.rules, backend.rule_kinds, context.inputs().worktree, backend.id);
    } catch (const abi::LoweringRefused& refused) {
        const bool unsearchable = refused.cause == abi::LoweringRefused::Cause::unsearchable_worktree;
        throw UserError(unsearchable ? kExitRefused : kExitUnavailable, refused.what());
    }
}

std::vector<std::string> layered_scratch_trees(const PluginRecord& backend, const Policy& policy) {
    std::vector<std::string> out;
    if (!backend.is_backend() || !(backend.rule_kinds & OMS_RULE_BIT(OMS_RULE_WRITE_SCRATCH_TREE))) return out;
    for (const PolicyRule& rule : policy.rules)
        if (rule.kind == OMS_RULE_WRITE_SCRATCH_TREE) out.push_back(rule.value);
    return out;
}

}  // namespace oms::core
