// The values of the plugin's [plugin.<id>] table given on the command line
// (`--config key=value`), checked against the keys the plugin declares and
// served through oms_host_api the way the oms host serves its config files.
// Arrays are written comma-separated: `--config ports=8899,8900`.
#pragma once
#include <oms/sdk.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace oms::backend_check {

class PluginConfig {
public:
    // "key=value" items; throws LoadError naming the key when it is not
    // declared by `descriptor` or its value does not have the declared type.
    void load(const std::vector<std::string>& items, const oms_plugin_descriptor& descriptor);
    // Fills the config services of `host` (host_data becomes this object).
    void serve(oms_host_api& host);

private:
    std::map<std::string, std::string> strings_;
    std::map<std::string, int64_t> integers_;
    std::map<std::string, bool> booleans_;
    std::map<std::string, std::vector<std::string>> string_arrays_;
    std::map<std::string, std::vector<const char*>> string_array_views_;
    std::map<std::string, std::vector<int64_t>> integer_arrays_;
    friend struct ConfigServices;
};

}  // namespace oms::backend_check
