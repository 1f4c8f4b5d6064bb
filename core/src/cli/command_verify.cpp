// oms verify: the pinned check in its own isolation. The check runs against
// a snapshot of its inputs (never the live worktree), read-only, next to a
// fresh offline Surfnet started inside its own sandbox, under the active
// backend's policy narrowed to the snapshot; its results go to a fresh
// OMS_OUTPUT_DIR that oms keeps, and its exit status is returned.
#include "oms/core/approval.hpp"
#include "oms/core/backend.hpp"
#include "oms/core/cli.hpp"
#include "oms/core/cli_options.hpp"
#include "oms/core/error.hpp"
#include "oms/core/keypair_links.hpp"
#include "oms/core/launcher.hpp"
#include "oms/core/paths.hpp"
#include "oms/core/policy.hpp"
#include "oms/core/policy_text.hpp"
#include "oms/core/private_gitconfig.hpp"
#include "oms/core/private_home_links.hpp"
#include "oms/core/protected_folders.hpp"
#include "oms/core/repository_record.hpp"
#include "oms/core/run_dir.hpp"
#include "oms/core/run_dir_sweep.hpp"
#include "oms/core/run_options.hpp"
#include "oms/core/signals.hpp"
#include "oms/core/tracked_files.hpp"
#include "oms/core/verify_plan.hpp"
#include "oms/core/verify_snapshot.hpp"
#include "oms/core/worktree_check.hpp"

#include <oms/path.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <boost/program_options.hpp>
#include <cstddef>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <optional>

namespace po = boost::program_options;

namespace oms::core {

namespace {

struct VerifyOptions {
    RunOptions run;
    std::vector<std::string> inputs;
    std::string surfnet_cmd, output;
    int surfnet_port = 0;
    bool plan = false;
};

// nullopt after printing the help.
std::optional<VerifyOptions> parse_verify_options(const Args& all_args) {
    VerifyOptions options;
    po::options_description description(
        "usage: oms verify [options] [--] CHECK [ARGS...]\n\n"
        "Runs the pinned check against a read-only snapshot of its inputs, next to a fresh offline Surfnet\n"
        "that is the only thing it can reach, and returns its exit status. Results: $OMS_OUTPUT_DIR.\n\noptions");
    add_run_options(description, options.run);
    description.add_options()
        ("inputs", po::value<std::vector<std::string>>(&options.inputs)->composing(),
         "files/folders to snapshot, comma-separated, relative to the worktree (default: [verify] inputs, "
         "else git's tracked files)")
        ("surfnet-cmd", po::value<std::string>(&options.surfnet_cmd),
         "the offline Surfnet command, split on blanks (no shell); {port} becomes its port (default: [verify] surfnet_cmd)")
        ("surfnet-port", po::value<int>(&options.surfnet_port), "its port (default: [verify] surfnet_port, else "
         "[plugin.network] surfnet_port, else 8899)")
        ("output", po::value<std::string>(&options.output), "the results folder to create (default: a fresh "
         "$TMPDIR/oms-verify-*); it must not exist")
        ("plan", po::bool_switch(&options.plan), "print the snapshot and network plan and the policy; run nothing")
        ("yes,y", po::bool_switch(&options.run.yes), "run on a backend without a sandbox (host-null) anyway");
    auto [args, command] = split_at_command(all_args, description);
    auto values = parse_options(args, description);
    if (!values) return std::nullopt;
    options.run.sandbox = given(*values, "sandbox");
    if (command.empty()) throw UserError(kExitUsage, "oms verify: no check given (oms verify [options] [--] CHECK ...)");
    // A check reaches its offline Surfnet only: the egress proxy is for `oms run`.
    if (!options.run.allow_hosts.empty())
        throw UserError(kExitUsage, "oms verify: --allow-host is refused: a check reaches only its offline Surfnet");
    options.run.command = command;
    std::vector<std::string> inputs;
    for (auto& item : options.inputs)
        for (auto& part : split_list(item, ','))
            if (!part.empty()) inputs.push_back(part);
    options.inputs = inputs;
    return options;
}

// The pinned files, relative to the worktree: they are copied with the rest.
std::vector<std::string> pinned_inputs(const Session& session, const RunOptions& options) {
    std::vector<std::string> pinned = session.config().strings("sandbox", "pinned");
    pinned.insert(pinned.end(), options.pinned.begin(), options.pinned.end());
    const std::string& worktree = session.paths().worktree;
    std::vector<std::string> out;
    for (std::string name : pinned) {
        if (name.empty()) continue;
        if (name[0] == '/') {
            const std::optional<std::string> normal = sdk::path::normalize(name);
            if (!normal || !sdk::path::is_strictly_below(*normal, worktree))
                throw UserError(kExitUsage, "oms verify: the pinned file " + name + " is outside the worktree " +
                                                worktree + ", so it cannot be part of the snapshot");
            name = normal->substr(worktree.size() + 1);
        }
        check_relative_input(name, "pinned file");
        out.push_back(name);
    }
    return out;
}

std::string make_output_dir(const std::string& wanted) {
    if (!wanted.empty()) {
        const std::string path = canonical_or_absolute(wanted);
        if (mkdir(path.c_str(), 0700) != 0)
            throw UserError(kExitUsage, "oms verify: --output " + wanted + ": cannot create it (it must not exist yet)");
        return canonical_or_absolute(path);
    }
    char stamp[32];
    std::time_t now = std::time(nullptr);
    std::strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%SZ", std::gmtime(&now));
    std::string pattern = temp_folder_base() + "/oms-verify-" + stamp + "-XXXXXX";
    if (mkdtemp(pattern.data()) == nullptr)
        throw UserError(kExitSoftware, "oms verify: cannot create a results folder in " + temp_folder_base());
    return pattern;
}

std::vector<std::string> launcher_argv(const VerifySettings& settings, const VerifyPlan& plan,
                                       const std::vector<std::string>& check) {
    std::vector<std::string> argv = verify_launcher(plan);
    argv.insert(argv.end(), {std::to_string(settings.port), std::to_string(settings.wait_ms),
                             std::to_string(settings.surfnet_argv.size())});
    argv.insert(argv.end(), settings.surfnet_argv.begin(), settings.surfnet_argv.end());
    argv.push_back("--");
    argv.insert(argv.end(), check.begin(), check.end());
    return argv;
}

// A backend whose plan says the check runs as the worktree's owner, never
// root (docker's container): when oms itself runs as root, the results
// folder goes to the live worktree's owner so the check can write there.
void hand_output_to_worktree_owner(const std::string& output, const std::string& worktree, const VerifyPlan& plan) {
    if (!plan.output_to_worktree_owner || geteuid() != 0) return;
    struct stat owner {};
    if (stat(worktree.c_str(), &owner) != 0 || owner.st_uid == 0) return;
    // Through a descriptor opened without following a link: a folder given
    // with --output may lie where someone else can swap in a link.
    const int fd = open(output.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    const bool handed = fd >= 0 && fchown(fd, owner.st_uid, owner.st_gid) == 0;
    if (fd >= 0) close(fd);
    if (!handed)
        throw UserError(kExitSoftware, "oms verify: cannot hand the results folder " + output +
                                           " to the worktree's owner (uid " + std::to_string(owner.st_uid) + ")");
}

// The snapshot is a task of its own to the backend (a warm docker container
// keyed on its path): it ends with the check, so nothing of it is kept.
void end_snapshot_task(Session& session, const BackendChoice& backend, RunContext& context) {
    const oms_backend_api* api = backend.record->backend();
    if (api->struct_size <= offsetof(oms_backend_api, end_task) || !api->end_task) return;
    BackendReport report;
    oms_report_sink sink = report_sink_into(report, OMS_REPORT_FOR_PERSON);
    char message[1024] = {0};
    oms_error error{message, sizeof message};
    if (api->end_task(session.registry().instance(backend.record->id)->handle(), context.view(), &sink, &error) !=
        OMS_OK)
        std::fprintf(stderr, "oms verify: %s: cannot end the snapshot's task: %s\n", backend.record->id.c_str(),
                     message);
}

void set_env(std::vector<std::string>& env, const std::string& name, const std::string& value) {
    std::vector<std::string> kept;
    for (auto& entry : env)
        if (entry.compare(0, name.size() + 1, name + "=") != 0) kept.push_back(entry);
    kept.push_back(name + "=" + value);
    env = kept;
}

void print_plan(const SnapshotReport& snapshot, const std::string& snapshot_path, const std::string& worktree,
                const NetworkChoice& network, const VerifySettings& settings, const std::vector<std::string>& check) {
    std::printf("oms verify plan\n\nsnapshot:\n  from: %s (%s)\n  copy: %s (read-only; removed after the check)\n"
                "  %zu files, %llu bytes\n",
                worktree.c_str(), snapshot.source.c_str(), snapshot_path.c_str(), snapshot.files,
                static_cast<unsigned long long>(snapshot.bytes));
    for (auto& line : snapshot.skipped) std::printf("  skipped: %s\n", line.c_str());
    std::printf("\nnetwork: %s\nsurfnet: 127.0.0.1:%u, started inside the sandbox:", network.text.c_str(),
                settings.port);
    for (auto& arg : settings.surfnet_argv) std::printf(" %s", arg.c_str());
    std::printf("\ncheck:");
    for (auto& arg : check) std::printf(" %s", arg.c_str());
    std::printf("\nresults: OMS_OUTPUT_DIR, a fresh folder made at the start and kept\n\n");
}

// The index names the snapshot's files only when the repository is the one
// that was there before any command ran in the worktree.
void refuse_repository_made_by_a_command(const std::string& worktree, const std::string& git_identity) {
    const std::optional<std::string> changed = repository_changed_since_first_run(state_dir(), worktree, git_identity);
    if (!changed) return;
    throw UserError(kExitRefused, "oms verify: refusing to list the inputs from the repository's index: " + *changed +
                                      ". Name them with [verify] inputs or --inputs instead; if you made that "
                                      "repository yourself, delete the record and run oms verify again. Nothing ran.");
}

// A link in the live worktree that would hand the check a key under another
// name (see keypair_links.hpp): what the check could read is what the policy
// opens, the live worktree's copies, and all outside HOME.
void refuse_keypair_links(const std::string& worktree, const Policy& policy, const std::string& home) {
    std::vector<std::string> suffixes, open_roots{worktree};
    for (const PolicyRule& rule : policy.rules) {
        if (rule.kind == OMS_RULE_READ_DENY_SUFFIX) suffixes.push_back(rule.value);
        if (rule.kind == OMS_RULE_READ_ALLOW_TREE || rule.kind == OMS_RULE_WRITE_ALLOW_TREE ||
            rule.kind == OMS_RULE_WRITE_SCRATCH_TREE)
            open_roots.push_back(rule.value);
    }
    const auto readable = [&](const std::string& path) {
        return home.empty() || !sdk::path::is_inside(path, home) || sdk::path::is_inside_any(path, open_roots);
    };
    std::error_code error;
    const std::string real_home = home.empty() ? "" : std::filesystem::weakly_canonical(home, error).string();
    const std::vector<std::string> links = links_to_refuse(LinkSearch{worktree, error ? home : real_home, suffixes,
                                                                      readable});
    if (links.empty()) return;
    std::string list;
    for (const std::string& link : links) list += (list.empty() ? "" : ", ") + link;
    throw UserError(kExitRefused, "oms verify: links that would hand the check a key under another name: " + list +
                                      ". Put a key itself at the keypair's name (what was written through a link lies "
                                      "in its target) and remove the link. Nothing ran.");
}

// Fails closed: a backend whose verify plan oms cannot keep, one that
// cannot run here, or one that confines nothing without --yes (with the
// spec's warning).
void refuse_unless_isolated(const VerifyOptions& options, const BackendChoice& backend, const NetworkChoice& network,
                            const std::vector<std::string>& check) {
    if (network.kind == VerifyNetwork::unsupported)
        throw UserError(kExitUnavailable, "oms verify: " + network.text + ". Nothing ran.");
    if (options.plan) return;
    if (!backend.report.usable)
        throw UserError(kExitUnavailable, "backend '" + backend.record->id + "' (chosen by " + backend.chosen_by +
                                              ") cannot run here (nothing ran): " + backend.report.reason);
    if (network.kind != VerifyNetwork::unconfined) return;
    std::fprintf(stderr, "oms verify: OMS host mode has NO sandbox here: the check would read your live files "
                         "and reach every host port and the network; its isolation cannot be given.\n");
    if (!options.run.yes)
        throw UserError(kExitRefused, "oms verify: refused on '" + backend.record->id +
                                          "' without --yes (use --sandbox landlock). Nothing ran.");
    require_approval(check, backend.record->id, true);
}

struct SnapshotPaths {
    std::string folder;
    std::vector<std::string> pinned;  // relative to it
};

// The run's inputs with the snapshot as the worktree, the launcher as the
// command, the results folder as a write root and the Surfnet's address and
// the results folder in the environment.
RunInputs verify_run_inputs(const Session& session, const VerifyOptions& options, const VerifySettings& settings,
                            const VerifyPlan& plan, const RunDir& run_dir, const SnapshotPaths& snapshot, const std::string& output,
                            const std::vector<std::string>& check) {
    RunOptions inner = options.run;
    inner.pinned.clear();
    inner.command = launcher_argv(settings, plan, check);
    if (!options.plan) inner.read_write.push_back(output);
    RunInputs in = make_run_inputs(session, inner, run_dir);
    in.worktree = snapshot.folder;
    in.working_dir = snapshot.folder;  // the check starts at the snapshot's top, never in the live tree
    in.surfpool.clear();  // no trusted listener on the host: the Surfnet is the check's own
    // The pinned files the check sees are the snapshot's copies (the config's
    // were resolved against the live worktree, which the check cannot see).
    in.pinned.clear();
    for (auto& name : snapshot.pinned) in.pinned.push_back(snapshot.folder + "/" + name);
    const std::string url = "http://127.0.0.1:" + std::to_string(settings.port);
    set_env(in.parent_env, "OMS_OUTPUT_DIR", output);
    set_env(in.parent_env, "SURFNET_RPC_URL", url);
    set_env(in.parent_env, "SOLANA_RPC_URL", url);
    return in;
}

}  // namespace

int command_verify(const Args& all_args) {
    std::optional<VerifyOptions> parsed = parse_verify_options(all_args);
    if (!parsed) return 0;
    VerifyOptions& options = *parsed;
    const std::vector<std::string> check = options.run.command;
    finish_run_options(options.run);
    Session session(options.run.worktree, BackendLoading::on_demand);
    refuse_changed_worktree(options.run.worktree, session.paths().worktree);
    const VerifySettings settings =
        read_verify_settings(session.config(), options.surfnet_cmd, options.surfnet_port, options.inputs);
    BackendChoice backend =
        choose_backend(session.registry(), session.config(), options.run.sandbox, OMS_REPORT_FOR_HOST);
    const VerifyPlan plan = verify_plan_of(*backend.record, *backend.instance, settings.port);
    require_verify_network(plan, backend.instance->handle(), backend.record->id);
    refuse_unless_isolated(options, backend, plan.network, check);
    const std::string& worktree = session.paths().worktree;
    if (!options.output.empty() && sdk::path::is_inside(canonical_or_absolute(options.output), worktree))
        throw UserError(kExitUsage, "oms verify: --output " + options.output +
                                        " lies inside the worktree, which the check cannot see; choose another folder");
    const auto refuse_made_by_a_command = [&](const std::string& identity) {
        refuse_repository_made_by_a_command(worktree, identity);
    };
    const TrackedFiles tracked =
        settings.inputs.empty() ? tracked_files(worktree, refuse_made_by_a_command) : TrackedFiles{};
    std::vector<std::string> inputs = settings.inputs.empty() ? tracked.files : settings.inputs;
    const std::vector<std::string> pinned = pinned_inputs(session, options.run);
    inputs.insert(inputs.end(), pinned.begin(), pinned.end());

    sweep_abandoned_run_dirs_when_due(run_dir_base(), state_dir());
    BlockedSignals blocked;
    RunDir run_dir;
    SnapshotFolder snapshot_folder(run_dir.root());
    SnapshotReport snapshot = copy_inputs(worktree, inputs, snapshot_folder.path(), settings.max_snapshot_bytes);
    snapshot.source = settings.inputs.empty() ? "the files tracked in " + tracked.index : "configured list";
    snapshot.skipped.insert(snapshot.skipped.begin(), tracked.notes.begin(), tracked.notes.end());
    for (auto& line : snapshot.skipped) std::fprintf(stderr, "oms verify: not in the snapshot: %s\n", line.c_str());

    const std::string output = options.plan ? run_dir.root() + "/output (made at the start)"
                                            : make_output_dir(options.output);
    if (!options.plan) hand_output_to_worktree_owner(output, worktree, plan);
    RunContext context(verify_run_inputs(session, options, settings, plan, run_dir,
                                         SnapshotPaths{snapshot_folder.path(), pinned}, output, check));
    write_private_gitconfig(context.inputs().home, run_dir.home(), context.inputs().worktree);
    link_toolchains_into_private_home(context.inputs().home, run_dir.home());
    Policy policy;
    assemble_policy(session.registry(), context, policy);
    narrow_policy_for_verify(policy, worktree, snapshot_folder.path(), plan,
                             resolve_program(settings.surfnet_argv[0]), settings.port);
    refuse_keypair_links(worktree, policy, context.inputs().home);
    if (options.plan) {
        print_plan(snapshot, snapshot_folder.path(), worktree, plan.network, settings, check);
        BackendReport rendering = render_policy(backend, context, policy);
        print_policy_text(context, policy, backend, rendering);
        return 0;
    }
    std::fprintf(stderr, "oms verify: results in %s\n", output.c_str());
    int exit_code = 0;
    try {
        exit_code = launch(backend, context, policy);
    } catch (...) {
        end_snapshot_task(session, backend, context);
        throw;
    }
    end_snapshot_task(session, backend, context);
    std::fprintf(stderr, "oms verify: the check exited %d; results in %s\n", exit_code, output.c_str());
    return exit_code;
}

}  // namespace oms::core
