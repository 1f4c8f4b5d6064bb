#include "program_links.hpp"

#include "paths.hpp"

#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>

namespace oms::policies {

std::vector<std::string> program_links(std::string_view folder, size_t limit) {
    std::vector<std::string> links;
    DIR* listing = ::opendir(std::string(folder).c_str());
    if (!listing) return links;
    size_t seen = 0;
    while (const dirent* entry = ::readdir(listing)) {
        if (++seen > limit) break;
        const std::string name = entry->d_name;
        if (name == "." || name == "..") continue;
        const std::string path = join(folder, name);
        // The listing's own type answers for most file systems; only one
        // that gives none is asked per entry.
        if (entry->d_type == DT_LNK) {
            links.push_back(path);
            continue;
        }
        if (entry->d_type != DT_UNKNOWN) continue;
        struct stat info {};
        if (::lstat(path.c_str(), &info) == 0 && S_ISLNK(info.st_mode)) links.push_back(path);
    }
    ::closedir(listing);
    std::sort(links.begin(), links.end());
    return links;
}

}  // namespace oms::policies
