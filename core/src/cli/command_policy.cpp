// oms policy: what a command would get, before anything runs: the assembled
// rules with their origins, the environment that passes, the network rule,
// and the chosen backend's own rendering of it.
#include "oms/core/backend.hpp"
#include "oms/core/cli.hpp"
#include "oms/core/cli_options.hpp"
#include "oms/core/env_options.hpp"
#include "oms/core/egress_run.hpp"
#include "oms/core/error.hpp"
#include "oms/core/json.hpp"
#include "oms/core/policy.hpp"
#include "oms/core/policy_guard.hpp"
#include "oms/core/policy_text.hpp"
#include "oms/core/policy_lowering.hpp"
#include "oms/core/published_ports.hpp"
#include "oms/core/run_options.hpp"
#include "oms/core/run_session.hpp"
#include "oms/core/trusted_surfpool.hpp"

#include <boost/program_options.hpp>
#include <cstdio>

namespace po = boost::program_options;

namespace oms::core {

void print_policy_text(const RunContext& context, const Policy& policy, const BackendChoice& backend,
                       const BackendReport& rendering) {
    const RunInputs& in = context.inputs();
    std::printf("worktree: %s\n", in.worktree.c_str());
    if (in.working_dir != in.worktree) std::printf("working folder: %s\n", in.working_dir.c_str());
    std::printf("home: %s\nprivate home: %s (per run)\n\n", in.home.c_str(), in.private_home.c_str());
    if (!in.surfpool.empty())
        std::printf("trusted Surfpool binary: %s (the command is this file: it may listen on loopback)\n\n",
                    in.surfpool.c_str());
    std::printf("rules:\n");
    for (auto& rule : policy.rules) {
        std::string value = is_numbered_rule(rule) ? std::to_string(rule.number) : rule.value;
        // The two ABI 1.1 kinds read wrongly without a word: a name, not a
        // path; and writes that do not reach the host.
        if (rule.kind == OMS_RULE_WRITE_DENY_NAME) value = "name '" + value + "' anywhere below a write root";
        if (rule.kind == OMS_RULE_WRITE_SCRATCH_TREE) value += " [writes thrown away after the run]";
        // ABI 1.4's: reachable like a loopback port, but this run's alone.
        if (rule.kind == OMS_RULE_NET_CONNECT_RUN_PORT) value += " [this run's own port]";
        // ABI 1.5's: the other way round, the host reaches the command.
        if (rule.kind == OMS_RULE_NET_PUBLISH_LOOPBACK)
            value += " [the host's 127.0.0.1:" + std::to_string(rule.number) + " reaches it]";
        std::printf("  %-20s %-40s  (%s)\n", rule_kind_name(rule.kind).c_str(), value.c_str(), rule.origin.c_str());
    }
    std::printf("\nenvironment:\n");
    for (auto& entry : policy.env) std::printf("  %s\n", entry.c_str());
    const DroppedVariables dropped = dropped_variables(in.parent_env, policy.env);
    if (!dropped.names.empty() || dropped.credentials > 0)
        std::printf("\nnot passed from your environment (--env NAME passes one for a run):\n  %s\n",
                    describe_dropped(dropped, dropped.names.size()).c_str());
    std::printf("\nbackend: %s (chosen by %s)%s\n", backend.record->id.c_str(), backend.chosen_by.c_str(),
                backend.report.usable ? "" : (" [cannot run here: " + backend.report.reason + "]").c_str());
    for (auto& line : rendering.text) std::printf("%s\n", line.c_str());
}

namespace {

void print_json(const RunContext& context, const Policy& policy, const BackendChoice& backend,
                const BackendReport& rendering, const std::vector<std::string>& egress) {
    JsonWriter json;
    json.begin_object().key("worktree").value(context.inputs().worktree);
    json.key("working_dir").value(context.inputs().working_dir).key("home").value(context.inputs().home);
    json.key("surfpool").value(context.inputs().surfpool);
    json.key("rules").begin_array();
    for (auto& rule : policy.rules) {
        json.begin_object().key("kind").value(rule_kind_name(rule.kind)).key("value").value(rule.value);
        json.key("number").value(rule.number).key("origin").value(rule.origin).end_object();
    }
    json.end_array();
    json.key("env").strings(policy.env);
    json.key("egress").strings(egress);
    json.key("backend").value(backend.record->id).key("usable").value(backend.report.usable);
    json.key("rendering").strings(rendering.text).end_object();
    std::printf("%s\n", json.str().c_str());
}

}  // namespace

int command_policy(const Args& args) {
    RunOptions options;
    po::options_description description("usage: oms policy [options] [[--] COMMAND ...]\n\noptions");
    add_run_options(description, options);
    description.add_options()("json", po::bool_switch(&options.json), "machine-readable output");
    auto [ours, command] = split_at_command(args, description);
    auto values = parse_options(ours, description);
    if (!values) return 0;
    options.sandbox = given(*values, "sandbox");
    options.command = command.empty() ? std::vector<std::string>{"/bin/sh"} : command;
    finish_run_options(options);
    RunSession opened = open_run_session(options);
    const Session& session = *opened.session;
    const BackendChoice& backend = opened.backend;
    RunDir run_dir;
    RunContext context(make_run_inputs(session, options, run_dir));
    Policy policy;
    assemble_policy(session.registry(), context, policy);
    add_published_ports(policy, published_ports(session.config(), options.publish));
    confirm_trusted_surfpool(context.inputs().surfpool, context.inputs().argv, policy.env, context.inputs().worktree);
    const std::vector<std::string> dropped = lower_policy_for_backend(*backend.record, context, policy);
    refuse_rules_unknown_to_backend(*backend.record, policy);
    BackendReport rendering = render_policy(backend, context, policy);
    std::vector<std::string> egress = egress_lines(egress_rules(session.config(), options.allow_hosts));
    if (!egress_rules(session.config(), options.allow_hosts).empty())
        egress.insert(egress.begin(), "a run adds connect-loopback for the proxy's port (chosen at run start) and "
                                      "the proxy variables (HTTP_PROXY, HTTPS_PROXY, ALL_PROXY, NO_PROXY, ...)");
    if (options.json) {
        print_json(context, policy, backend, rendering, egress);
    } else {
        print_policy_text(context, policy, backend, rendering);
        for (const std::string& line : dropped) std::printf("%s\n", line.c_str());
        std::printf("\nnetwork beyond the allowed local ports ([network] allow_hosts, --allow-host):\n");
        for (auto& line : egress) std::printf("  %s\n", line.c_str());
    }
    return 0;
}

}  // namespace oms::core
