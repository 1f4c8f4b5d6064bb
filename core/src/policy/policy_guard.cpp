#include "oms/core/policy_guard.hpp"

#include "oms/core/error.hpp"
#include "oms/core/protected_folders.hpp"

#include <oms/path.hpp>

#include <sys/stat.h>

#include <algorithm>
#include <cstdio>
#include <optional>

namespace oms::core {

namespace {

bool is_folder(const std::string& path) {
    struct stat info {};
    return ::stat(path.c_str(), &info) == 0 && S_ISDIR(info.st_mode);
}

struct GuardInputs {
    std::vector<std::string> homes;
    std::vector<std::string> denied;          // READ_DENY paths
    std::vector<std::string> denied_folders;  // those that are existing folders
    std::string worktree;
};

GuardInputs gather(const RunContext& context, const Policy& policy) {
    GuardInputs in;
    in.homes = home_folders();
    const std::string home = resolved_path(context.inputs().home);
    if (std::find(in.homes.begin(), in.homes.end(), home) == in.homes.end()) in.homes.push_back(home);
    in.worktree = resolved_path(context.inputs().worktree);
    for (const PolicyRule& rule : policy.rules) {
        if (rule.kind != OMS_RULE_READ_DENY) continue;
        in.denied.push_back(rule.value);
        if (is_folder(rule.value)) in.denied_folders.push_back(rule.value);
    }
    return in;
}

// Why a root rule (read or write) must not stand, or nullopt.
std::optional<std::string> root_fault(const GuardInputs& in, const std::string& root, bool write) {
    if (root == "/") return std::string("it is the root folder '/'");
    const bool temp = write && is_system_temp_folder(root);
    for (const std::string& home : in.homes) {
        if (root == home) return "it is HOME (" + home + ")";
        if (!temp && sdk::path::is_inside(home, root)) return "it holds HOME (" + home + ")";
    }
    for (const std::string& denied : in.denied)
        if (sdk::path::is_inside(root, denied)) return "it lies inside the denied path " + denied;
    if (temp || root == in.worktree) return std::nullopt;
    for (const std::string& folder : in.denied_folders)
        if (sdk::path::is_inside(folder, root)) return "it holds the denied folder " + folder;
    return std::nullopt;
}

}  // namespace

void guard_assembled_policy(const RunContext& context, Policy& policy) {
    const GuardInputs in = gather(context, policy);
    std::vector<PolicyRule> kept;
    for (PolicyRule& rule : policy.rules) {
        const bool write = rule.kind == OMS_RULE_WRITE_ALLOW_TREE;
        if (rule.kind != OMS_RULE_READ_ALLOW_TREE && !write) {
            kept.push_back(std::move(rule));
            continue;
        }
        const auto fault = root_fault(in, resolved_path(rule.value), write);
        if (!fault) {
            kept.push_back(std::move(rule));
        } else if (write) {
            throw UserError(kExitRefused, "refusing to run: the write root '" + rule.value + "' (" + rule.origin +
                                              ") is not allowed: " + *fault + ". Nothing ran.");
        } else {
            std::fprintf(stderr, "oms: warning: the read root '%s' (%s) is dropped: %s\n", rule.value.c_str(),
                         rule.origin.c_str(), fault->c_str());
        }
    }
    policy.rules = std::move(kept);
}

void refuse_rules_unknown_to_backend(const PluginRecord& backend, const Policy& policy) {
    if (!backend.is_backend()) return;
    for (const PolicyRule& rule : policy.rules)
        if (rule.kind >= 64 || !(backend.rule_kinds & OMS_RULE_BIT(rule.kind)))
            throw UserError(kExitUnavailable,
                            "refusing to run: the backend '" + backend.id + "' (targeting plugin ABI " +
                                std::to_string(backend.abi_major) + "." + std::to_string(backend.abi_minor) +
                                ") does not declare the rule kind " + rule_kind_name(rule.kind) + " ('" + rule.value +
                                "', " + rule.origin + "); it would not enforce it. Nothing ran.");
}

}  // namespace oms::core
