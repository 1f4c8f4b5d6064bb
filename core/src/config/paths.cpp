#include "oms/core/paths.hpp"

#include <pwd.h>
#include <unistd.h>

#include <boost/dll/runtime_symbol_info.hpp>
#include <cstdlib>
#include <filesystem>

namespace fs = std::filesystem;

namespace oms::core {

std::optional<std::string> env_value(const char* name) {
    const char* value = std::getenv(name);
    if (value == nullptr || *value == '\0') return std::nullopt;
    return std::string(value);
}

std::string home_dir() {
    if (auto home = env_value("HOME")) return *home;
    if (passwd* entry = getpwuid(getuid())) return entry->pw_dir;
    return "/";
}

std::string user_config_file() {
    std::string base = env_value("XDG_CONFIG_HOME").value_or(home_dir() + "/.config");
    return base + "/oms/config.toml";
}

std::string state_dir() {
    std::string base = env_value("XDG_STATE_HOME").value_or(home_dir() + "/.local/state");
    return base + "/oms";
}

std::string executable_dir() { return boost::dll::program_location().parent_path().string(); }

std::string executable_path() { return boost::dll::program_location().string(); }

std::string default_config_file() {
    return fs::weakly_canonical(fs::path(executable_dir()) / OMS_DATA_RELATIVE_DIR / "default.toml").string();
}

std::string builtin_plugin_dir() {
    return fs::weakly_canonical(fs::path(executable_dir()) / OMS_PLUGIN_RELATIVE_DIR).string();
}

std::string canonical_or_absolute(const std::string& path) {
    std::error_code error;
    fs::path absolute = fs::absolute(path, error);
    fs::path resolved = fs::weakly_canonical(absolute, error);
    return (error ? absolute.lexically_normal() : resolved).string();
}

std::vector<std::string> split_list(const std::string& text, char separator) {
    std::vector<std::string> parts;
    size_t start = 0;
    while (start <= text.size()) {
        size_t end = text.find(separator, start);
        if (end == std::string::npos) end = text.size();
        if (end > start) parts.push_back(text.substr(start, end - start));
        start = end + 1;
    }
    return parts;
}

}  // namespace oms::core
