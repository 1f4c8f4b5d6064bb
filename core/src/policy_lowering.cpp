#include "oms/core/policy_lowering.hpp"

#include "oms/core/error.hpp"

#include <filesystem>
#include <string>
#include <vector>

namespace oms::core {

namespace {

namespace fs = std::filesystem;

bool knows_abi_1_1(const PluginRecord& backend) { return backend.abi_major > 1 || backend.abi_minor >= 1; }

bool is_within(const std::string& path, const std::string& root) {
    if (root == "/") return !path.empty() && path[0] == '/';
    return path == root || (path.size() > root.size() && path.compare(0, root.size(), root) == 0 &&
                            path[root.size()] == '/');
}

// Every entry called `name` below `root`, links not followed, the inside of
// a match not searched (the deny covers it). Any error stops the run: a
// folder left out could hold a writable nested .git.
std::vector<std::string> find_named(const std::string& root, const std::string& name) {
    std::vector<std::string> found;
    std::error_code error;
    fs::recursive_directory_iterator walk(root, fs::directory_options::none, error);
    for (; !error && walk != fs::recursive_directory_iterator(); walk.increment(error)) {
        if (walk->path().filename() != name) continue;
        found.push_back(walk->path().string());
        if (walk->is_directory(error) && !walk->is_symlink(error)) walk.disable_recursion_pending();
    }
    if (error)
        throw UserError(kExitRefused, "refusing to run: cannot search the worktree " + root + " for '" + name +
                                          "' entries to protect (" + error.message() +
                                          "); make every folder in it readable. Nothing ran.");
    return found;
}

bool in_write_root(const Policy& policy, const std::string& path) {
    for (const PolicyRule& rule : policy.rules)
        if (rule.kind == OMS_RULE_WRITE_ALLOW_TREE && is_within(path, rule.value)) return true;
    return false;
}

}  // namespace

void lower_policy_for_backend(const PluginRecord& backend, const RunContext& context, Policy& policy) {
    if (knows_abi_1_1(backend)) return;
    std::vector<PolicyRule> lowered;
    for (PolicyRule& rule : policy.rules) {
        if (rule.kind == OMS_RULE_WRITE_DENY_NAME) {
            for (const std::string& path : find_named(context.inputs().worktree, rule.value))
                lowered.push_back(PolicyRule{OMS_RULE_WRITE_DENY, path, 0, rule.origin + " (found now)"});
        } else if (rule.kind == OMS_RULE_WRITE_SCRATCH_TREE) {
            if (in_write_root(policy, rule.value))
                lowered.push_back(PolicyRule{OMS_RULE_WRITE_DENY, rule.value, 0, rule.origin + " (no per-run layer)"});
        } else {
            lowered.push_back(std::move(rule));
        }
    }
    policy.rules = std::move(lowered);
}

}  // namespace oms::core
