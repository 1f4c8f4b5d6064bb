// A backend plugin loaded through its C ABI alone (dlopen, the entry symbol,
// the descriptor), the way the oms host loads it, with a host that serves
// the `--config` values given (the plugin's defaults otherwise) and prints
// the plugin's warnings.
#pragma once
#include "plugin_config.hpp"

#include <oms/sdk.h>

#include <string>
#include <vector>

namespace oms::backend_check {

struct ReportLine {
    oms_report_kind kind;
    std::string text;
};

// Thrown when the plugin cannot be loaded or used at all.
struct LoadError {
    std::string message;
};

class LoadedBackend {
public:
    // Loads `path`; `wanted_id` (may be empty) must match the descriptor's id;
    // `config` holds "key=value" items for the plugin's table.
    LoadedBackend(const std::string& path, const std::string& wanted_id, const std::vector<std::string>& config);
    ~LoadedBackend();
    LoadedBackend(const LoadedBackend&) = delete;
    LoadedBackend& operator=(const LoadedBackend&) = delete;

    const oms_plugin_descriptor& descriptor() const { return *descriptor_; }
    // The rule kinds it handles (OMS_RULE_BIT bits): its declaration, or the
    // frozen kinds of its target minor when its interface predates it.
    uint64_t rule_kinds() const { return rule_kinds_; }
    bool declares_rule_kinds() const { return declares_rule_kinds_; }
    const oms_backend_api& api() const { return *api_; }
    void* instance() const { return instance_; }

    // probe(): OMS_OK or the status, with the report lines and the reason.
    oms_status probe(std::vector<ReportLine>& lines, std::string& reason) const;
    // render(): OMS_OK or the status, with the TEXT lines and the reason.
    oms_status render(const oms_run_context* context, const oms_policy* policy, std::vector<ReportLine>& lines,
                      std::string& reason) const;
    // end_task() when the plugin has one (a warm container per task), else OMS_OK.
    oms_status end_task(const oms_run_context* context, std::string& reason) const;

private:
    void* library_ = nullptr;
    const oms_plugin_descriptor* descriptor_ = nullptr;
    const oms_backend_api* api_ = nullptr;
    void* instance_ = nullptr;
    uint64_t rule_kinds_ = 0;
    bool declares_rule_kinds_ = false;
    oms_host_api host_{};
    PluginConfig config_;
};

}  // namespace oms::backend_check
