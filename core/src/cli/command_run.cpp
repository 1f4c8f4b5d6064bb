// oms run: assemble the policy and run one command under the chosen backend.
#include "oms/core/approval.hpp"
#include "oms/core/backend.hpp"
#include "oms/core/cli.hpp"
#include "oms/core/cli_options.hpp"
#include "oms/core/config_error_location.hpp"
#include "oms/core/egress_run.hpp"
#include "oms/core/error.hpp"
#include "oms/core/failure_hint.hpp"
#include "oms/core/published_ports.hpp"
#include "oms/core/kept_npm_logs.hpp"
#include "oms/core/hidden_tool.hpp"
#include "oms/core/launch_phase_log.hpp"
#include "oms/core/launcher.hpp"
#include "oms/core/paths.hpp"
#include "oms/core/policy.hpp"
#include "oms/core/private_gitconfig.hpp"
#include "oms/core/private_home_links.hpp"
#include "oms/core/private_npmrc.hpp"
#include "oms/core/registry.hpp"
#include "oms/core/repository_record.hpp"
#include "oms/core/run_dir.hpp"
#include "oms/core/run_dir_sweep.hpp"
#include "oms/core/run_options.hpp"
#include "oms/core/run_session.hpp"
#include "oms/core/running_runs.hpp"
#include "oms/core/signals.hpp"
#include "oms/core/trusted_surfpool.hpp"
#include "oms/core/utc_time.hpp"
#include "oms/core/warn_once.hpp"

#include <boost/program_options.hpp>
#include <cstdio>
#include <ctime>

namespace po = boost::program_options;

namespace oms::core {

namespace {

// A plugin file the loader could not take (cut short, not a shared object)
// is named on every run until it is fixed: whatever it provided is missing.
void warn_unloadable_plugins(const Registry& registry) {
    for (auto& record : registry.records())
        if (record.unloadable)
            std::fprintf(stderr, "oms: warning: plugin file %s was skipped: %s\n", record.file.c_str(),
                         record.reason.c_str());
}

void warn_lost_guarantees(const BackendChoice& backend, const RunInputs& in) {
    if (!(in.flags & OMS_RUN_BEST_EFFORT)) return;
    for (auto& line : backend.report.missing)
        std::fprintf(stderr, "oms: warning: best effort: not enforced here: %s\n", line.c_str());
}

// The record `oms explain --last` reads; a failure to write it is reported
// but does not change the command's exit status.
void record_run(const RunContext& context, const std::string& backend, const EgressRules& egress,
                const ViolationLog& violations, int exit_code) {
    RunRecord record;
    record.command = context.inputs().argv;
    record.backend = backend;
    record.worktree = context.inputs().worktree;
    record.finished = utc_now();
    record.exit_code = exit_code;
    for (const HostPattern& p : egress.allow) record.allow_hosts.push_back(p.text);
    record.refused = violations.count();
    record.violations = violations.kept();
    record.hidden = violations.hidden_files();
    if (auto problem = write_run_record(context.inputs().state_dir, record))
        std::fprintf(stderr, "oms: warning: the run record was not written: %s\n", problem->c_str());
}

}  // namespace

int command_run(const Args& all_args) {
    RunOptions options;
    po::options_description description("usage: oms run [options] [--] COMMAND [ARGS...]\n\noptions");
    add_run_options(description, options);
    description.add_options()("yes,y", po::bool_switch(&options.yes), "approve the command (backends without a sandbox)")(
        "quiet,q", po::bool_switch(&options.quiet),
        "no informational line from oms (the worktree note, the line after a failed command); refusals and "
        "warnings still print");
    auto [args, command] = split_at_command(all_args, description);
    auto values = parse_options(args, description);
    if (!values) return 0;
    options.sandbox = given(*values, "sandbox");
    if (command.empty()) throw UserError(kExitUsage, "oms run: no command given (oms run [options] [--] COMMAND ...)");
    options.command = command;
    finish_run_options(options);

    RunSession opened = open_run_session(options);
    const Session& session = *opened.session;
    const BackendChoice& backend = opened.backend;
    log_launch_phase("plugins-loaded");
    warn_unloadable_plugins(session.registry());
    if (!backend.report.usable) {
        throw_if_config_error(session.config(), backend.record->id, backend.report.reason);
        throw UserError(kExitUnavailable, "backend '" + backend.record->id + "' (chosen by " + backend.chosen_by +
                                              ") cannot run here (nothing ran): " + backend.report.reason);
    }
    const bool unconfined = backend.record->backend()->flags & OMS_BACKEND_NEEDS_APPROVAL;
    if (unconfined && backend.chosen_by == "auto")
        std::fprintf(stderr, "oms: warning: no confining backend can run here; using %s (no sandbox)\n",
                     backend.record->id.c_str());
    // Approval first: nothing is created before the user says yes, and a
    // refused command does not use up the one-time warning.
    if (unconfined) require_approval(options.command, backend.record->id, options.yes);
    sweep_abandoned_run_dirs_when_due(run_dir_base(), state_dir());
    // From here on a signal must not kill oms before it removes the run folder.
    BlockedSignals blocked;
    RunDir run_dir;
    RunContext context(make_run_inputs(session, options, run_dir));
    write_private_gitconfig(context.inputs().home, run_dir.home(), context.inputs().worktree);
    link_toolchains_into_private_home(context.inputs().home, run_dir.home());
    write_private_npmrc(run_dir.home());
    log_launch_phase("private-home");
    const EgressRules egress = egress_rules(session.config(), options.allow_hosts);
    Policy policy;
    assemble_policy(session.registry(), context, policy);
    add_published_ports(policy, published_ports(session.config(), options.publish));
    log_launch_phase("policy");
    confirm_trusted_surfpool(context.inputs().surfpool, context.inputs().argv, policy.env, context.inputs().worktree);
    warn_once(context.inputs().state_dir, backend.record->id, backend.report.warn_once);
    warn_lost_guarantees(backend, context.inputs());
    remember_repository(context.inputs().state_dir, context.inputs().worktree);  // before any command runs here
    write_run_about(run_dir.owner_fd(), context.inputs().argv, backend.record->id, context.inputs().worktree);
    ViolationLog violations(context.inputs().refusal_log);
    log_launch_phase("launch");
    int exit_code = 0;
    {
        // Lives exactly as long as the command: stopped before oms reports.
        const std::unique_ptr<EgressProxy> proxy = start_egress_proxy(egress, violations);
        if (proxy) route_through_proxy(policy, proxy->port());
        exit_code = launch(backend, context, policy);
    }
    log_launch_phase("command-ended");
    violations.add_backend_refusals(context.inputs().refusal_log);
    record_run(context, backend.record->id, egress, violations, exit_code);
    if (violations.count() > 0) std::fprintf(stderr, "%s\n", refusal_summary(violations).c_str());
    if (failure_hint_wanted(exit_code)) {
        const std::string kept = kept_npm_logs_line(keep_npm_logs(run_dir.root_fd(), context.inputs().state_dir));
        if (!kept.empty() && !options.quiet) std::fprintf(stderr, "%s\n", kept.c_str());
    }
    // After the command's own output: it has exited, and this goes to stderr only.
    if (!unconfined && !options.quiet && session.config().boolean("sandbox", "failure_hint", true)) {
        const std::string& from = context.inputs().working_dir.empty() ? context.inputs().worktree
                                                                        : context.inputs().working_dir;
        const FailedRun run{backend.record->id,
                            exit_code,
                            dropped_variables(context.inputs().parent_env, policy.env),
                            context.inputs().argv,
                            context.inputs().state_dir,
                            context.inputs().worktree,
                            hidden_tool_note(options.command.front(), policy, context.inputs().home, from),
                            violations.hidden_files(),
                            violations.count()};
        const std::string line = failure_line(run);
        if (!line.empty()) std::fprintf(stderr, "%s\n", line.c_str());
    }
    log_launch_phase("recorded");
    return exit_code;
}

}  // namespace oms::core
