#include "oms/core/config_error_location.hpp"

#include "oms/core/error.hpp"

#include <cctype>

namespace oms::core {

namespace {

bool is_key_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-'; }

}  // namespace

std::optional<std::string> located_config_error(const Config& config, const std::string& plugin_id,
                                                const std::string& message) {
    const std::string table = "plugin." + plugin_id;
    const std::string named = "[" + table + "] ";
    for (size_t at = message.find(named); at != std::string::npos; at = message.find(named, at + 1)) {
        size_t end = at + named.size();
        while (end < message.size() && is_key_char(message[end])) ++end;
        const std::string key = message.substr(at + named.size(), end - at - named.size());
        const ConfigValue* value = key.empty() ? nullptr : config.get(table, key);
        if (value && !value->where.empty()) return "config error: " + value->where + ": " + message.substr(at);
    }
    return std::nullopt;
}

void throw_if_config_error(const Config& config, const std::string& plugin_id, const std::string& message) {
    if (auto located = located_config_error(config, plugin_id, message)) throw UserError(kExitConfig, *located);
}

}  // namespace oms::core
