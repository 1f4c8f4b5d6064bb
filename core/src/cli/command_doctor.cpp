// oms doctor: what oms found (config files, plugin folders, every plugin with
// its status) and the one line saying which confinement is active. Exits
// non-zero when the backend that would be used cannot run.
#include "oms/core/backend.hpp"
#include "oms/core/canaries.hpp"
#include "oms/core/cli.hpp"
#include "oms/core/cli_options.hpp"
#include "oms/core/egress_run.hpp"
#include "oms/core/error.hpp"
#include "oms/core/guarantees.hpp"
#include "oms/core/json.hpp"
#include "oms/core/plugin_listing.hpp"
#include "oms/core/policy.hpp"
#include "oms/core/session.hpp"
#include "oms/core/verify_plan.hpp"
#include "oms/core/version.hpp"
#include "oms/core/worktree_default.hpp"

#include <boost/program_options.hpp>
#include <cstdio>
#include <filesystem>

namespace po = boost::program_options;

namespace oms::core {

namespace {

struct DoctorView {
    std::vector<std::pair<std::string, std::string>> files;  // layer, path (+ state)
    std::vector<std::string> folders;
    std::vector<PluginRow> rows;
    std::string backend, chosen_by, problem;
    BackendReport report;
    std::vector<std::string> surfnet;  // the Surfnet ports and the trusted Surfpool binary
    std::vector<std::string> egress;   // the allowlist and what it does not protect
};

std::string port_list(const ConfigValue* value, const std::string& fallback) {
    if (!value) return fallback;
    if (value->type == OMS_CONFIG_INTEGER) return std::to_string(value->integer);
    std::string out;
    for (int64_t port : value->integers) out += (out.empty() ? "" : ", ") + std::to_string(port);
    return out.empty() ? "none" : out;
}

// What the network plugin lets commands reach, and which binary is trusted
// to listen: each backend's own lines say how it carries them.
std::vector<std::string> surfnet_lines(const Config& config) {
    std::vector<std::string> out;
    out.push_back("Surfnet port (a local Solana test network's; commands may connect on 127.0.0.1): " +
                  port_list(config.get("plugin.network", "surfnet_port"), "8899"));
    out.push_back("Surfpool ports (trusted Surfpool runs only): " +
                  port_list(config.get("plugin.network", "surfpool_ports"), "8899, 8900, 9900"));
    if (const ConfigValue* denied = config.get("plugin.network", "deny_ports"))
        out.push_back("denied ports: " + port_list(denied, "none"));
    // The other way round: ports of the command's own loopback the host reaches.
    out.push_back("published to the host's 127.0.0.1 ([network] publish; oms run --publish PORT adds one): " +
                  port_list(config.get("network", "publish"), "none"));
    const auto surfpool = config.text("sandbox", "surfpool");
    out.push_back("trusted Surfpool binary: " +
                  (surfpool ? *surfpool + " (sandbox.surfpool; trusted only when a command's argv[0] is that very "
                                          "file; else oms run --surfpool PATH)"
                            : std::string("none configured (oms run --surfpool PATH names it per run)")));
    return out;
}

DoctorView gather(const Session& session, const std::optional<std::string>& sandbox) {
    DoctorView view;
    const SessionPaths& p = session.paths();
    std::error_code error;
    for (auto& [layer, path] : std::vector<std::pair<std::string, std::string>>{
             {"defaults", p.default_config}, {"user", p.user_config}, {"worktree", p.worktree_config}})
        view.files.emplace_back(layer, path + (std::filesystem::exists(path, error) ? "" : " (not found)"));
    view.folders = session.registry().folders();
    auto reports = probe_all_backends(session.registry());
    for (auto& [id, report] : reports) apply_required_guarantees(session.config(), report);
    try {
        BackendChoice choice = choose_backend(session.registry(), session.config(), sandbox, OMS_REPORT_FOR_PERSON);
        view.backend = choice.record->id;
        view.chosen_by = choice.chosen_by;
        view.report = choice.report;
        if (!choice.report.usable) view.problem = "cannot run here: " + choice.report.reason;
        check_policy_plugins(session.registry());
    } catch (const UserError& e) {
        view.problem = e.what();
    }
    view.rows = plugin_rows(session.registry(), view.backend, reports);
    view.surfnet = surfnet_lines(session.config());
    try {
        view.egress = egress_lines(egress_rules(session.config(), {}));
    } catch (const UserError& e) {
        view.egress = {e.what()};
    }
    return view;
}

void print_text(const DoctorView& v) {
    std::printf("%s\n\nconfig files:\n", version_text().c_str());
    for (auto& [layer, path] : v.files) std::printf("  %-9s %s\n", layer.c_str(), path.c_str());
    std::printf("\nplugin folders:\n");
    for (auto& folder : v.folders) std::printf("  %s\n", folder.c_str());
    std::printf("\nplugins:\n%s\n", format_plugin_rows(v.rows).c_str());
    std::printf("surfnet:\n");
    for (auto& line : v.surfnet) std::printf("  %s\n", line.c_str());
    std::printf("network beyond the allowed local ports ([network] allow_hosts):\n");
    for (auto& line : v.egress) std::printf("  %s\n", line.c_str());
    if (!v.backend.empty()) std::printf("backend: %s (chosen by %s)\n", v.backend.c_str(), v.chosen_by.c_str());
    if (!v.problem.empty()) {
        std::printf("confinement: none available: %s\n", v.problem.c_str());
        return;
    }
    std::printf("confinement: %s\n", v.report.summary.c_str());
    if (!v.report.settings.empty()) std::printf("settings: %s\n", v.report.settings.c_str());
    for (auto& line : v.report.details) std::printf("  %s\n", line.c_str());
    for (auto& line : v.report.missing) std::printf("missing: %s\n", line.c_str());
}

void print_json(const DoctorView& v, const std::vector<CanaryResult>* canaries) {
    JsonWriter json;
    json.begin_object().key("version").value(version_text());
    json.key("config_files").begin_array();
    for (auto& [layer, path] : v.files) json.begin_object().key("layer").value(layer).key("path").value(path).end_object();
    json.end_array();
    json.key("plugin_folders").strings(v.folders);
    json.key("surfnet").strings(v.surfnet);
    json.key("egress").strings(v.egress);
    json.key("plugins");
    write_plugin_rows(json, v.rows);
    json.key("backend").value(v.backend).key("chosen_by").value(v.chosen_by);
    json.key("usable").value(v.problem.empty()).key("problem").value(v.problem);
    json.key("confinement").value(v.report.summary).key("settings").value(v.report.settings);
    json.key("details").strings(v.report.details).key("missing").strings(v.report.missing);
    if (canaries) {
        json.key("probe").begin_array();
        for (auto& c : *canaries)
            json.begin_object()
                .key("rule").value(c.rule)
                .key("passed").value(c.status == CanaryStatus::pass)
                .key("status").value(status_name(c.status))
                .key("detail").value(c.detail)
                .end_object();
        json.end_array();
    }
    json.end_object();
    std::printf("%s\n", json.str().c_str());
}

}  // namespace

int command_doctor(const Args& args) {
    po::options_description description("usage: oms doctor [options]\n\noptions");
    std::string worktree;
    description.add_options()("json", "machine-readable output")(
        "probe", "run canaries inside the active backend and report pass/fail per rule")(
        "sandbox", po::value<std::string>(), "report on this backend instead of the default choice")(
        "worktree", po::value<std::string>(&worktree), "worktree whose .oms/config.toml to read (default: as oms run: the repository holding the current folder)");
    auto parsed = parse_options(args, description);
    if (!parsed) return 0;
    const po::variables_map& vm = *parsed;
    std::optional<std::string> sandbox = given(vm, "sandbox");
    Session session(worktree.empty() ? default_worktree(std::filesystem::current_path().string()).worktree : worktree);
    DoctorView view = gather(session, sandbox);
    std::vector<CanaryResult> canaries;
    bool probe = vm.count("probe") && view.problem.empty();
    if (probe)
        canaries =
            run_canaries(session, choose_backend(session.registry(), session.config(), sandbox, OMS_REPORT_FOR_PERSON));
    if (vm.count("json")) {
        print_json(view, probe ? &canaries : nullptr);
    } else {
        print_text(view);
        const PluginRecord* backend = view.backend.empty() ? nullptr : session.registry().find(view.backend);
        const PluginInstance* instance = backend ? session.registry().instance(view.backend) : nullptr;
        if (instance) std::printf("%s\n", verify_doctor_line(session.config(), *backend, *instance).c_str());
        if (probe) std::printf("\n%s", format_canaries(canaries).c_str());
    }
    if (!view.problem.empty()) return kExitUnavailable;
    return canaries_exit_code(canaries);
}

}  // namespace oms::core
