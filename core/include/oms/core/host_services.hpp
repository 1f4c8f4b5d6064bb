// The oms_host_api table lent to one plugin instance: logging through
// spdlog, and read access to the plugin's own [plugin.<id>] config table.
#pragma once
#include "oms/core/config.hpp"

#include <oms/sdk.h>

#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace oms::core {

class HostServices {
public:
    HostServices(std::string plugin_id, const Config& config);
    const oms_host_api* api() const { return &api_; }

private:
    friend struct HostServiceCalls;
    const ConfigValue* lookup(const char* key, oms_config_type type) const;
    std::string plugin_id_;
    std::string table_;
    const Config& config_;
    oms_host_api api_{};
    std::mutex lists_mutex_;  // services may be called from any thread
    std::map<std::string, std::vector<const char*>> string_lists_;  // views kept for the plugin
};

}  // namespace oms::core
