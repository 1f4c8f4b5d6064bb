#include "python_user_site.hpp"

#include "paths.hpp"

#include <dirent.h>

#include <algorithm>
#include <cctype>

namespace oms::policies {

namespace {

bool digits(std::string_view text) {
    return !text.empty() && std::all_of(text.begin(), text.end(), [](unsigned char c) { return std::isdigit(c); });
}

// "python3.12": the name pip gives a version's folder (not "python3", not "python3.12t-debug").
bool is_version_folder_name(std::string_view name) {
    if (name.rfind("python", 0) != 0) return false;
    const std::string_view version = name.substr(6);
    const size_t dot = version.find('.');
    return dot != std::string_view::npos && digits(version.substr(0, dot)) && digits(version.substr(dot + 1));
}

}  // namespace

std::vector<std::string> python_user_sites(std::string_view userbase) {
    std::vector<std::string> sites;
    const std::string lib = join(userbase, "lib");
    DIR* folder = ::opendir(lib.c_str());
    if (!folder) return sites;
    while (const dirent* entry = ::readdir(folder)) {
        if (!is_version_folder_name(entry->d_name)) continue;
        const std::string site = join(join(lib, entry->d_name), "site-packages");
        if (is_directory(site)) sites.push_back(site);
    }
    ::closedir(folder);
    std::sort(sites.begin(), sites.end());
    return sites;
}

}  // namespace oms::policies
