#include "path_utils.hpp"

#include <oms/openat2.hpp>

#include <oms/path.hpp>
#include <oms/path_resolver.hpp>

#include <dirent.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>

namespace oms::landlock {

bool mountable(const std::string& path) {
    struct stat st;
    return stat(path.c_str(), &st) == 0 && (S_ISDIR(st.st_mode) || S_ISREG(st.st_mode));
}

std::vector<std::string> outermost(std::vector<std::string> roots) {
    std::sort(roots.begin(), roots.end());
    roots.erase(std::unique(roots.begin(), roots.end()), roots.end());
    std::vector<std::string> out;
    // Against every kept root, not the last one: in byte order "/a/b-c"
    // sorts between "/a/b" and "/a/b/c", so a nested root is not always
    // next to the root that holds it.
    for (const auto& r : roots)
        if (!sdk::path::is_inside_any(r, out)) out.push_back(r);
    return out;
}

std::optional<std::string> canonical(const std::string& path) { return sdk::canonical_path(path); }

std::optional<std::string> real_path_without_links(const std::string& path) {
    const int fd = sdk::open_no_links(path.c_str());
    if (fd < 0) return std::nullopt;
    char buffer[PATH_MAX];
    const std::string link = "/proc/self/fd/" + std::to_string(fd);
    const ssize_t length = readlink(link.c_str(), buffer, sizeof buffer);
    close(fd);
    if (length <= 0 || length >= static_cast<ssize_t>(sizeof buffer) || buffer[0] != '/') return std::nullopt;
    return std::string(buffer, static_cast<size_t>(length));
}

std::optional<std::string> link_text(const std::string& path) {
    char buffer[PATH_MAX];
    const ssize_t length = readlink(path.c_str(), buffer, sizeof buffer);
    if (length < 0 || length >= static_cast<ssize_t>(sizeof buffer)) return std::nullopt;
    return std::string(buffer, static_cast<size_t>(length));
}

std::vector<std::string> non_symlink_children(const std::string& folder) {
    std::vector<std::string> out;
    DIR* dir = opendir(folder.c_str());
    if (!dir) return out;
    const std::string prefix = folder == "/" ? "/" : folder + "/";
    while (dirent* entry = readdir(dir)) {
        std::string name = entry->d_name;
        if (name == "." || name == "..") continue;
        std::string full = prefix + name;
        unsigned char type = entry->d_type;
        if (type == DT_UNKNOWN) {
            struct stat st;
            if (lstat(full.c_str(), &st) != 0) continue;
            type = S_ISLNK(st.st_mode) ? DT_LNK : DT_REG;
        }
        if (type == DT_LNK) continue;  // its target is checked on its own path
        out.push_back(full);
    }
    closedir(dir);
    std::sort(out.begin(), out.end());
    return out;
}

std::optional<std::string> find_program(const std::string& name, const std::string& search_path,
                                        const std::string& cwd) {
    auto runnable = [](const std::string& p) {
        struct stat st;
        return stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode) && access(p.c_str(), X_OK) == 0;
    };
    if (name.empty()) return std::nullopt;
    if (name.find('/') != std::string::npos) {
        std::string full = name[0] == '/' ? name : cwd + "/" + name;
        return runnable(full) ? std::optional<std::string>(full) : std::nullopt;
    }
    size_t start = 0;
    while (start <= search_path.size()) {
        size_t end = search_path.find(':', start);
        if (end == std::string::npos) end = search_path.size();
        std::string dir = search_path.substr(start, end - start);
        if (dir.empty()) dir = cwd;
        std::string full = dir + "/" + name;
        if (runnable(full)) return full;
        start = end + 1;
    }
    return std::nullopt;
}

}  // namespace oms::landlock
