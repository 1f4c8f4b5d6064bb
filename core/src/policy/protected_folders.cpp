#include "oms/core/protected_folders.hpp"

#include "oms/core/paths.hpp"

#include <oms/path_resolver.hpp>

#include <pwd.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>

namespace fs = std::filesystem;

namespace oms::core {

std::string resolved_path(const std::string& path) {
    // An existing path resolves the same either way; weakly_canonical is
    // left for the rest (a missing tail, a relative path).
    sdk::PathResolver* resolver = sdk::PathResolverScope::active();
    if (resolver && !path.empty() && path.front() == '/')
        if (auto real = resolver->real_path(path)) return *real;
    std::error_code error;
    fs::path out = fs::weakly_canonical(fs::absolute(path, error), error);
    std::string text = (error ? fs::path(path).lexically_normal() : out).string();
    while (text.size() > 1 && text.back() == '/') text.pop_back();
    return text;
}

std::vector<std::string> home_folders() {
    std::vector<std::string> homes;
    if (auto home = env_value("HOME")) homes.push_back(resolved_path(*home));
    if (passwd* entry = getpwuid(getuid()); entry && entry->pw_dir && entry->pw_dir[0] == '/') {
        std::string home = resolved_path(entry->pw_dir);
        if (std::find(homes.begin(), homes.end(), home) == homes.end()) homes.push_back(home);
    }
    return homes;
}

bool is_system_temp_folder(const std::string& path) {
    static const char* const folders[] = {"/tmp", "/var/tmp", "/private/tmp", "/private/var/folders"};
    return std::any_of(std::begin(folders), std::end(folders), [&](const char* folder) { return path == folder; });
}

}  // namespace oms::core
