// The plugin table shared by `oms doctor` and `oms plugins`: one row per
// plugin file with its status (active / available / unavailable / loaded /
// rejected) and the reason.
#pragma once
#include "oms/core/backend.hpp"
#include "oms/core/json.hpp"
#include "oms/core/registry.hpp"

#include <map>
#include <string>
#include <vector>

namespace oms::core {

struct PluginRow {
    std::string id, kind, version, abi, file, status, reason;
    std::string summary;  // the descriptor's one line (what the plugin is), may be empty
};

// `active` is the chosen backend's id (may be empty); `reports` the probe of
// each loaded backend.
std::vector<PluginRow> plugin_rows(const Registry& registry, const std::string& active,
                                   const std::map<std::string, BackendReport>& reports);
std::map<std::string, BackendReport> probe_all_backends(const Registry& registry);
std::string format_plugin_rows(const std::vector<PluginRow>& rows);
void write_plugin_rows(JsonWriter& json, const std::vector<PluginRow>& rows);

}  // namespace oms::core
