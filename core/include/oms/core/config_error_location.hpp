// Plugins name a bad config value the way users write it, "[plugin.ID] KEY
// ...", but only the core knows which file and line set it. These turn such
// a plugin message into a config error naming file, line and key.
#pragma once
#include "oms/core/config.hpp"

#include <optional>
#include <string>

namespace oms::core {

// "config error: FILE:LINE: MESSAGE" when `message` names a key of
// `[plugin.<plugin_id>]` that the config sets; nullopt otherwise.
std::optional<std::string> located_config_error(const Config& config, const std::string& plugin_id,
                                                const std::string& message);

// Throws UserError(kExitConfig) with the located message when there is one.
void throw_if_config_error(const Config& config, const std::string& plugin_id, const std::string& message);

}  // namespace oms::core
