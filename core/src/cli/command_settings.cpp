// oms settings: the active backend's one-line settings summary.
#include "oms/core/backend.hpp"
#include "oms/core/cli.hpp"
#include "oms/core/cli_options.hpp"
#include "oms/core/error.hpp"
#include "oms/core/json.hpp"
#include "oms/core/session.hpp"

#include <cstdio>

namespace oms::core {

int command_settings(const Args& args) {
    auto options = parse_common_options(args, "usage: oms settings [options]\n\noptions");
    if (!options) return 0;
    Session session(options->worktree, BackendLoading::on_demand);
    BackendChoice backend = choose_backend(session.registry(), session.config(), options->sandbox, OMS_REPORT_FOR_HOST);
    std::string line = backend.report.usable ? backend.report.settings : "Unavailable: " + backend.report.reason;
    if (options->json) {
        JsonWriter writer;
        writer.begin_object().key("backend").value(backend.record->id).key("settings").value(line).end_object();
        std::printf("%s\n", writer.str().c_str());
    } else {
        std::printf("sandbox: %s\n%s\n", backend.record->id.c_str(), line.c_str());
    }
    return backend.report.usable ? 0 : kExitUnavailable;
}

}  // namespace oms::core
