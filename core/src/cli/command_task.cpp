// oms task end: the task of a worktree is over; every backend drops what it
// keeps per task (warm containers).
#include "oms/core/backend.hpp"
#include "oms/core/cli.hpp"
#include "oms/core/cli_options.hpp"
#include "oms/core/error.hpp"
#include "oms/core/json.hpp"
#include "oms/core/run_options.hpp"
#include "oms/core/session.hpp"
#include "oms/core/worktree_check.hpp"

#include <cstddef>
#include <cstdio>

namespace oms::core {

int command_task(const Args& args) {
    if (args.empty() || args[0] != "end") {
        if (!args.empty() && (args[0] == "--help" || args[0] == "-h")) {
            std::printf("usage: oms task end [--worktree DIR]\n  ends the task of DIR: backends drop what they keep "
                        "per task (warm containers)\n");
            return 0;
        }
        throw UserError(kExitUsage, "usage: oms task end [--worktree DIR]");
    }
    auto common = parse_common_options(Args(args.begin() + 1, args.end()), "usage: oms task end [options]\n\noptions");
    if (!common) return 0;
    const std::string worktree = checked_worktree(common->worktree);
    Session session(worktree);
    refuse_changed_worktree(worktree, session.paths().worktree);
    RunOptions options;
    options.worktree = worktree;
    RunDir run_dir;
    RunContext context(make_run_inputs(session, options, run_dir));
    int status = 0;
    for (const PluginRecord* record : session.registry().loaded(OMS_KIND_BACKEND)) {
        const oms_backend_api* api = record->backend();
        if (api->struct_size <= offsetof(oms_backend_api, end_task) || !api->end_task) continue;
        BackendReport report;
        oms_report_sink sink = report_sink_into(report, OMS_REPORT_FOR_PERSON);
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
