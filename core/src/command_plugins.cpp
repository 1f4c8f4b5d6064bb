// oms plugins: the plugin table alone; oms settings: the active backend's
// settings line; oms task end: drop per-task state in every backend.
#include "oms/core/backend.hpp"
#include "oms/core/cli.hpp"
#include "oms/core/cli_options.hpp"
#include "oms/core/error.hpp"
#include "oms/core/json.hpp"
#include "oms/core/plugin_listing.hpp"
#include "oms/core/run_options.hpp"
#include "oms/core/session.hpp"

#include <boost/program_options.hpp>
#include <cstdio>
#include <filesystem>

namespace po = boost::program_options;

namespace oms::core {

namespace {

// Parses the common [--worktree DIR] [--json] [--sandbox ID]; returns false after printing help.
bool parse_simple(const Args& args, const char* usage, std::string& worktree, bool& json,
                  std::optional<std::string>& sandbox) {
    po::options_description description(usage);
    description.add_options()("worktree", po::value<std::string>(&worktree), "the task's worktree (default: current folder)")(
        "json", po::bool_switch(&json), "machine-readable output")("sandbox", po::value<std::string>(), "backend id");
    auto values = parse_options(args, description);
    if (!values) return false;
    sandbox = given(*values, "sandbox");
    if (worktree.empty()) worktree = std::filesystem::current_path().string();
    return true;
}

}  // namespace

namespace {

// `oms plugins --keys`: every config key each loaded plugin declares, and the
// core's own [sandbox] table, as the reference of what a config file may say.
void print_keys(const Session& session) {
    auto print_table = [](const std::string& table, const Schema& schema) {
        std::printf("[%s]\n", table.c_str());
        for (auto& [name, spec] : schema)
            std::printf("  %-16s %-18s %-8s %s\n", name.c_str(), type_name(spec.type),
                        spec.narrows ? "narrows" : "-", spec.description.c_str());
    };
    print_table("sandbox", core_schema());
    for (auto& record : session.registry().records())
        if (record.status == PluginStatus::Loaded && !record.schema.empty())
            print_table("plugin." + record.id, record.schema);
}

}  // namespace

int command_plugins(const Args& args) {
    std::string worktree;
    bool json = false;
    std::optional<std::string> sandbox;
    Args rest;
    bool keys = false;
    for (auto& arg : args) {
        if (arg == "--keys")
            keys = true;
        else
            rest.push_back(arg);
    }
    if (!parse_simple(rest, "usage: oms plugins [--keys] [options]\n  --keys                print every config key the "
                            "core and each plugin declare\n\noptions",
                      worktree, json, sandbox))
        return 0;
    Session session(worktree);
    if (keys) {
        print_keys(session);
        return 0;
    }
    auto rows = plugin_rows(session.registry(), "", probe_all_backends(session.registry()));
    if (json) {
        JsonWriter writer;
        write_plugin_rows(writer, rows);
        std::printf("%s\n", writer.str().c_str());
    } else {
        std::printf("%s", format_plugin_rows(rows).c_str());
    }
    return 0;
}

int command_settings(const Args& args) {
    std::string worktree;
    bool json = false;
    std::optional<std::string> sandbox;
    if (!parse_simple(args, "usage: oms settings [options]\n\noptions", worktree, json, sandbox)) return 0;
    Session session(worktree);
    BackendChoice backend = choose_backend(session.registry(), session.config(), sandbox);
    std::string line = backend.report.usable ? backend.report.settings : "Unavailable: " + backend.report.reason;
    if (json) {
        JsonWriter writer;
        writer.begin_object().key("backend").value(backend.record->id).key("settings").value(line).end_object();
        std::printf("%s\n", writer.str().c_str());
    } else {
        std::printf("sandbox: %s\n%s\n", backend.record->id.c_str(), line.c_str());
    }
    return backend.report.usable ? 0 : kExitUnavailable;
}

int command_task(const Args& args) {
    if (args.empty() || args[0] != "end") {
        if (!args.empty() && (args[0] == "--help" || args[0] == "-h")) {
            std::printf("usage: oms task end [--worktree DIR]\n  ends the task of DIR: backends drop what they keep "
                        "per task (warm containers)\n");
            return 0;
        }
        throw UserError(kExitUsage, "usage: oms task end [--worktree DIR]");
    }
    std::string worktree;
    bool json = false;
    std::optional<std::string> sandbox;
    if (!parse_simple(Args(args.begin() + 1, args.end()), "usage: oms task end [options]\n\noptions", worktree, json,
                      sandbox))
        return 0;
    Session session(worktree);
    RunOptions options;
    options.worktree = worktree;
    RunDir run_dir;
    RunContext context(make_run_inputs(session, options, run_dir));
    int status = 0;
    for (const PluginRecord* record : session.registry().loaded(OMS_KIND_BACKEND)) {
        const oms_backend_api* api = record->backend();
        if (api->struct_size <= offsetof(oms_backend_api, end_task) || !api->end_task) continue;
        BackendReport report;
        oms_report_sink sink = report_sink_into(report);
        char message[1024] = {0};
        oms_error error{message, sizeof message};
        if (api->end_task(session.registry().instance(record->id)->handle(), context.view(), &sink, &error) != OMS_OK) {
            std::fprintf(stderr, "oms: %s: %s\n", record->id.c_str(), message);
            status = 1;
        }
        for (auto& line : report.text) std::printf("%s: %s\n", record->id.c_str(), line.c_str());
        for (auto& line : report.details) std::printf("%s: %s\n", record->id.c_str(), line.c_str());
    }
    return status;
}

}  // namespace oms::core
