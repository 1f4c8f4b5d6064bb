#include "run_inputs.hpp"

#include <cstdlib>

namespace oms::docker {

namespace {

std::vector<std::string> owned(const std::vector<std::string_view>& views) {
    return std::vector<std::string>(views.begin(), views.end());
}

bool rendered_kind(oms_rule_kind kind) {
    return kind == OMS_RULE_READ_DENY || kind == OMS_RULE_READ_DENY_SUFFIX || kind == OMS_RULE_WRITE_DENY ||
           kind == OMS_RULE_WRITE_DENY_NAME;
}

std::string resolved(const std::string& path) {
    char* real = realpath(path.c_str(), nullptr);
    if (!real) return path;
    std::string out = real;
    free(real);
    return out;
}

// The --ro or --rw mounts the policy opened (a rule of `kind` names each);
// the others were refused by it (one holding HOME, say, whose secrets a
// bind would show) and are not mounted at all.
std::vector<std::string> opened(const std::vector<std::string_view>& mounts, const sdk::Policy& policy,
                                oms_rule_kind kind) {
    std::vector<std::string> out;
    for (auto mount : mounts) {
        const std::string real = resolved(std::string(mount));
        for (const sdk::Rule& rule : policy.rules())
            if (rule.kind == kind && (rule.value == mount || resolved(std::string(rule.value)) == real)) {
                out.emplace_back(mount);
                break;
            }
    }
    return out;
}

}  // namespace

RunInputs inputs_from(const sdk::Context& context, const sdk::Policy& policy) {
    RunInputs in;
    in.worktree = context.worktree();
    in.working_dir = sdk::checked_working_dir(context);
    in.home = context.home();
    in.private_home = context.private_home();
    in.temp_dir = context.temp_dir();
    in.state_dir = context.state_dir();
    in.refusal_log = context.refusal_log();
    in.read_only = opened(context.read_only(), policy, OMS_RULE_READ_ALLOW_TREE);
    in.read_write = opened(context.read_write(), policy, OMS_RULE_WRITE_ALLOW_TREE);
    in.pinned = owned(context.pinned());
    for (const sdk::Rule& rule : policy.rules()) {
        if (rendered_kind(rule.kind)) in.rules.push_back(PathRule{rule.kind, std::string(rule.value)});
        if (rule.kind == OMS_RULE_NET_CONNECT_LOOPBACK) in.connect_ports.push_back(rule.number);
        if (rule.kind == OMS_RULE_NET_CONNECT_RUN_PORT) in.run_ports.push_back(rule.number);
        if (rule.kind == OMS_RULE_NET_PUBLISH_LOOPBACK) in.publish_ports.push_back(rule.number);
        if (rule.kind == OMS_RULE_NET_LISTEN_LOOPBACK) in.listen_binaries.emplace_back(rule.value);
    }
    in.env = owned(policy.env());
    for (auto entry : sdk::list(context.raw().parent_env)) in.parent_env.emplace_back(entry);
    in.argv = owned(context.argv());
    in.best_effort = context.best_effort();
    in.interactive = (context.raw().flags & OMS_RUN_INTERACTIVE) != 0;
    return in;
}

}  // namespace oms::docker
