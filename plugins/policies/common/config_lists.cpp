#include "config_lists.hpp"

#include "paths.hpp"

#include <oms/path.hpp>

namespace oms::policies {

void config_error(std::string_view plugin_id, std::string_view key, std::string_view problem) {
    throw oms::sdk::Error(OMS_ERR_INVALID, "[plugin." + std::string(plugin_id) + "] " + std::string(key) + ": " +
                                               std::string(problem));
}

std::vector<std::string> config_paths(const oms::sdk::Host& host, std::string_view plugin_id, const char* key,
                                      std::string_view home, RelativePaths relative) {
    std::vector<std::string> paths;
    for (const std::string& entry : host.strings(key)) {
        if (entry.empty()) config_error(plugin_id, key, "an entry is empty");
        std::string path = expand_home(entry, home);
        if (!sdk::path::is_absolute(path)) {
            if (relative == RelativePaths::refuse)
                config_error(plugin_id, key, "'" + entry + "' is not an absolute path (use /... or ~/...)");
            path = join(home, path);
        }
        paths.push_back(std::move(path));
    }
    return paths;
}

}  // namespace oms::policies
