#include "oms/core/run_options.hpp"

#include "oms/core/error.hpp"
#include "oms/core/mount_path_check.hpp"
#include "oms/core/paths.hpp"
#include "oms/core/protected_folders.hpp"
#include "oms/core/repository_top.hpp"
#include "oms/core/trusted_surfpool.hpp"
#include "oms/core/worktree_check.hpp"
#include "oms/core/worktree_default.hpp"

#include <oms/path.hpp>

#include <unistd.h>

#include <boost/program_options.hpp>
#include <cstdio>
#include <filesystem>

namespace po = boost::program_options;
namespace fs = std::filesystem;

namespace oms::core {

void add_run_options(po::options_description& options, RunOptions& values) {
    options.add_options()
        ("sandbox", po::value<std::string>(), "backend id (else OMS_SANDBOX, else config, else the strongest usable)")
        ("worktree", po::value<std::string>(&values.worktree), "the task's worktree, where the command starts (default: the top of the repository holding the "
         "current folder, else the current folder; the command then starts in the current folder)")
        ("cwd", po::value<std::string>(&values.working_dir), "the folder the command starts in, inside the worktree (default: as "
         "--worktree says)")
        ("ro", po::value<std::vector<std::string>>(&values.read_only)->composing(), "extra read-only mount (repeatable)")
        ("rw", po::value<std::vector<std::string>>(&values.read_write)->composing(), "extra read-write mount (repeatable)")
        ("pinned", po::value<std::vector<std::string>>(&values.pinned)->composing(),
         "pinned verifier files, comma-separated (repeatable); never writable")
        ("surfpool", po::value<std::string>()->notifier([&values](const std::string& v) { values.surfpool = v; }),
         "the command is this trusted Surfpool binary (checked: argv[0] must resolve to this very file); only it "
         "may listen on loopback and use the Surfpool ports")
        ("env", po::value<std::vector<std::string>>(&values.env)->composing(),
         "NAME passes your NAME to the command for this run, NAME=VALUE sets it (repeatable); credentials "
         "never pass")
        ("allow-host", po::value<std::vector<std::string>>(&values.allow_hosts)->composing(),
         "NAME[:PORT] or *.DOMAIN[:PORT] the command may reach through oms's filtering proxy for this run, "
         "besides [network] allow_hosts (repeatable; [network] deny_hosts still wins)")
        ("publish", po::value<std::vector<std::string>>(&values.publish)->composing(),
         "PORT: the host's 127.0.0.1:PORT reaches the command's own loopback port PORT while the run lives (a dev "
         "server), besides [network] publish (repeatable)")
        ("best-effort", po::bool_switch(&values.best_effort),
         "run even if the backend cannot enforce every rule (doctor and a warning say what is lost)");
}

void finish_run_options(RunOptions& values) {
    std::vector<std::string> pinned;
    for (auto& item : values.pinned)
        for (auto& part : split_list(item, ',')) pinned.push_back(part);
    values.pinned = pinned;
    if (!values.working_dir.empty()) values.working_dir = canonical_or_absolute(values.working_dir);
    if (values.worktree.empty()) {
        const WorktreeChoice choice = default_worktree(fs::current_path().string());
        values.worktree = choice.worktree;
        values.worktree_defaulted = true;
        if (values.working_dir.empty()) values.working_dir = choice.working_dir;
    }
    std::error_code error;
    if (!fs::is_directory(values.worktree, error))
        throw UserError(kExitUsage, "--worktree " + values.worktree + ": not a folder");
    values.worktree = checked_worktree(values.worktree);
}

namespace {

std::vector<std::string> canonical_all(std::vector<std::string> paths) {
    for (auto& p : paths) p = canonical_or_absolute(p);
    return paths;
}

// --ro/--rw folders, resolved with no link followed where a command writes.
std::vector<std::string> checked_mounts(std::vector<std::string> a, const std::vector<std::string>& b,
                                        const std::string& worktree, const std::string& flag) {
    a.insert(a.end(), b.begin(), b.end());
    for (auto& path : a) path = checked_mount_path(path, worktree, flag);
    return a;
}

}  // namespace

RunInputs make_run_inputs(const Session& session, const RunOptions& options, const RunDir& run_dir) {
    const Config& config = session.config();
    RunInputs in;
    in.platform = current_platform();
    in.home = canonical_or_absolute(home_dir());
    in.worktree = session.paths().worktree;
    in.working_dir = options.working_dir.empty() ? in.worktree : resolved_path(options.working_dir);
    if (!sdk::path::is_inside(in.working_dir, in.worktree))
        throw UserError(kExitRefused, "refusing to run: the working folder " + in.working_dir +
                                          " is not inside the worktree " + in.worktree + ". Nothing ran.");
    in.private_home = run_dir.home();
    in.temp_dir = run_dir.temp();
    in.refusal_log = run_dir.refusal_log();
    in.state_dir = state_dir();
    in.parent_env = current_environment();
    in.read_only = checked_mounts(config.strings("sandbox", "read_only"), options.read_only, in.worktree, "--ro");
    in.read_write = checked_mounts(config.strings("sandbox", "read_write"), options.read_write, in.worktree, "--rw");
    // Pinned files are named relative to the worktree they guard.
    std::vector<std::string> pinned = config.strings("sandbox", "pinned");
    pinned.insert(pinned.end(), options.pinned.begin(), options.pinned.end());
    for (auto& file : pinned)
        if (!file.empty() && file[0] != '/') file = in.worktree + "/" + file;
    in.pinned = canonical_all(pinned);
    in.argv = options.command;
    in.env_options = options.env;
    in.surfpool = trusted_surfpool_for(options.surfpool, config.text("sandbox", "surfpool"), in.argv,
                                       path_of(in.parent_env), in.worktree);
    if (options.best_effort || config.boolean("sandbox", "best_effort", false)) in.flags |= OMS_RUN_BEST_EFFORT;
    if (isatty(STDIN_FILENO)) in.flags |= OMS_RUN_INTERACTIVE;
    return in;
}

}  // namespace oms::core
