#include "oms/core/backend.hpp"

#include "oms/core/error.hpp"
#include "oms/core/guarantees.hpp"
#include "oms/core/paths.hpp"
#include "oms/core/run_context.hpp"

#include <algorithm>
#include <optional>

namespace oms::core {

namespace {

void collect(void* data, oms_report_kind kind, oms_str text) {
    auto& report = *static_cast<BackendReport*>(data);
    std::string line(text.data ? text.data : "", text.size);
    switch (kind) {
        case OMS_REPORT_SUMMARY: report.summary = line; break;
        case OMS_REPORT_SETTINGS: report.settings = line; break;
        case OMS_REPORT_DETAIL: report.details.push_back(line); break;
        case OMS_REPORT_MISSING: report.missing.push_back(line); break;
        case OMS_REPORT_WARN_ONCE: report.warn_once.push_back(line); break;
        default: report.text.push_back(line); break;
    }
}

// "the backends here: a, b, c", so a misspelt id is corrected at once.
std::string known_backends(const Registry& registry) {
    std::string ids;
    for (const PluginRecord* record : registry.loaded(OMS_KIND_BACKEND)) ids += (ids.empty() ? "" : ", ") + record->id;
    return ids.empty() ? "no backend plugin is loaded (see `oms doctor`)" : "the backends here: " + ids;
}

BackendChoice named(const Registry& registry, const Config& config, const std::string& id, const std::string& by,
                    oms_report_audience audience) {
    const PluginRecord* record = registry.find(id);
    PluginInstance* instance = record ? registry.instance(id) : nullptr;
    if (!record || !instance) {
        const PluginRecord* broken = registry.find_any(id);
        std::string why = broken ? "its plugin was rejected: " + broken->reason
                                 : "no plugin with this id was found; " + known_backends(registry);
        throw UserError(kExitUnavailable, "backend '" + id + "' (chosen by " + by + ") cannot be used: " + why);
    }
    if (!record->is_backend())
        throw UserError(kExitUnavailable, "'" + id + "' (chosen by " + by + ") is a policy plugin, not a backend; " +
                                              known_backends(registry));
    BackendChoice choice{record, instance, probe_backend(*record, *instance, audience), by};
    apply_required_guarantees(config, choice.report);
    return choice;
}

}  // namespace

oms_report_sink report_sink_into(BackendReport& report, oms_report_audience audience) {
    return oms_report_sink{sizeof(oms_report_sink), &report, &collect, audience};
}

BackendReport probe_backend(const PluginRecord& record, const PluginInstance& instance, oms_report_audience audience) {
    BackendReport report;
    oms_report_sink sink = report_sink_into(report, audience);
    char message[1024] = {0};
    oms_error error{message, sizeof message};
    oms_status status = OMS_ERR_INTERNAL;
    try {
        status = record.backend()->probe(instance.handle(), &sink, &error);
    } catch (...) {
        std::snprintf(message, sizeof message, "probe threw an exception");
    }
    report.usable = status == OMS_OK;
    if (!report.usable) report.reason = message[0] ? message : "probe failed (status " + std::to_string(status) + ")";
    return report;
}

namespace {

// Strongest first, and stop at the first that can run: probing costs (the
// docker probe talks to its daemon), so weaker ones are not asked, and a
// deferred one is loaded only when its turn comes. nullopt: a deferred
// backend declared another strength or platforms than remembered, so this
// ranking was wrong.
std::optional<BackendChoice> strongest_usable(const Registry& registry, const Config& config,
                                              oms_report_audience audience) {
    std::vector<const PluginRecord*> candidates;
    for (const PluginRecord* record : registry.backends())
        if (serves_current_platform(*record)) candidates.push_back(record);
    std::stable_sort(candidates.begin(), candidates.end(),
                     [](const PluginRecord* a, const PluginRecord* b) { return a->strength() > b->strength(); });
    for (const PluginRecord* record : candidates) {
        if (!registry.load_deferred(*record)) return std::nullopt;
        PluginInstance* instance = registry.instance(record->id);
        if (record->status != PluginStatus::Loaded || !instance) continue;  // rejected when it loaded
        BackendReport report = probe_backend(*record, *instance, audience);
        apply_required_guarantees(config, report);  // a backend lacking one is passed over
        if (report.usable) return BackendChoice{record, instance, std::move(report), "auto"};
    }
    return BackendChoice{};
}

bool unconfined(const BackendChoice& choice) {
    return choice.record && (choice.record->backend()->flags & OMS_BACKEND_NEEDS_APPROVAL);
}

bool any_deferred(const Registry& registry) {
    for (const PluginRecord* record : registry.backends())
        if (record->status == PluginStatus::Deferred) return true;
    return false;
}

}  // namespace

bool serves_current_platform(const PluginRecord& record) {
    for (auto& p : split_list(record.platforms(), ','))
        if (p == current_platform()) return true;
    return false;
}

BackendChoice choose_backend(const Registry& registry, const Config& config, const std::optional<std::string>& flag,
                             oms_report_audience audience) {
    if (flag && !flag->empty() && *flag != "auto") return named(registry, config, *flag, "--sandbox", audience);
    if (auto env = env_value("OMS_SANDBOX"); env && *env != "auto")
        return named(registry, config, *env, "OMS_SANDBOX", audience);
    if (auto configured = config.text("sandbox", "backend"); configured && *configured != "auto") {
        const ConfigValue* value = config.get("sandbox", "backend");
        return named(registry, config, *configured, "config (" + value->where + ")", audience);
    }
    std::optional<BackendChoice> best = strongest_usable(registry, config, audience);
    // Ranked from the record wrongly, or about to run unconfined while some
    // backend is known only from the record: rank them all from their
    // descriptors.
    if (!best || (unconfined(*best) && any_deferred(registry))) {
        registry.load_all_deferred();
        best = strongest_usable(registry, config, audience);
    }
    if (!best || !best->record)
        throw UserError(kExitUnavailable, "no backend can run here: none of the loaded backends probes as usable "
                                          "(see `oms doctor`)");
    return std::move(*best);
}

BackendReport render_policy(const BackendChoice& backend, const RunContext& context, Policy& policy) {
    BackendReport report;
    oms_report_sink sink = report_sink_into(report, OMS_REPORT_FOR_PERSON);
    char message[1024] = {0};
    oms_error error{message, sizeof message};
    oms_status status =
        backend.record->backend()->render(backend.instance->handle(),
                                          context.view_for_backend(backend.record->run_flags), policy.view(), &sink,
                                          &error);
    if (status != OMS_OK)
        throw UserError(kExitUnavailable, "backend '" + backend.record->id + "' cannot render this policy: " + message);
    return report;
}

}  // namespace oms::core
