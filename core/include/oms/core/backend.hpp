// Choosing the backend and asking it about itself. The choice: --sandbox,
// else OMS_SANDBOX, else the config's sandbox.backend, else the strongest
// loaded backend that probes as usable on this platform.
#pragma once
#include "oms/core/config.hpp"
#include "oms/core/policy.hpp"
#include "oms/core/registry.hpp"

#include <optional>
#include <string>
#include <vector>

namespace oms::core {

struct BackendReport {
    bool usable = false;
    std::string reason;  // why not usable
    std::string summary, settings;
    std::vector<std::string> details, missing, warn_once, text;
};

// `audience`: OMS_REPORT_FOR_HOST when the report only serves to start a
// command (its other DETAIL lines are not read), OMS_REPORT_FOR_PERSON when
// someone reads it.
BackendReport probe_backend(const PluginRecord& record, const PluginInstance& instance, oms_report_audience audience);

struct BackendChoice {
    const PluginRecord* record = nullptr;
    PluginInstance* instance = nullptr;
    BackendReport report;
    std::string chosen_by;  // "--sandbox", "OMS_SANDBOX", "config", "auto"
};

// Throws UserError when a named backend does not exist or failed to load, or
// when no backend at all can run (auto). A named backend that exists but
// probes as unusable is returned with report.usable == false.
BackendChoice choose_backend(const Registry& registry, const Config& config, const std::optional<std::string>& flag,
                             oms_report_audience audience);

// Does this backend say it serves the platform oms runs on?
bool serves_current_platform(const PluginRecord& record);

// The backend's own rendering of `policy` for review (oms policy, oms verify
// --plan), even when it cannot run here (seatbelt on Linux). Throws UserError
// when it cannot render.
BackendReport render_policy(const BackendChoice& backend, const RunContext& context, Policy& policy);

// Collects report lines from a plugin into a BackendReport.
oms_report_sink report_sink_into(BackendReport& report, oms_report_audience audience);

}  // namespace oms::core
