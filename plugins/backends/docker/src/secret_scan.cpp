#include "secret_scan.hpp"

#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>

namespace oms::docker {

namespace {

bool ends_with(const std::string& s, const std::string& suffix) {
    return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

struct Walker {
    const std::vector<std::string>& suffixes;
    const std::vector<std::string>& skip;
    size_t limit;
    size_t seen = 0;
    ScanResult result;

    void visit_file(const std::string& path) {
        for (const std::string& suffix : suffixes)
            if (ends_with(path, suffix)) {
                result.matches.push_back(path);
                return;
            }
    }

    void walk(const std::string& dir) {
        DIR* handle = opendir(dir.c_str());
        if (!handle) return;  // unreadable here means unreadable in the container too
        while (dirent* entry = readdir(handle)) {
            std::string name = entry->d_name;
            if (name == "." || name == "..") continue;
            if (++seen > limit) {
                result.complete = false;
                break;
            }
            std::string path = (dir == "/" ? "" : dir) + "/" + name;
            struct stat st;
            if (lstat(path.c_str(), &st) != 0) continue;
            if (S_ISDIR(st.st_mode)) {
                if (std::find(skip.begin(), skip.end(), path) == skip.end()) walk(path);
            } else if (S_ISREG(st.st_mode)) {
                visit_file(path);
            }
        }
        closedir(handle);
    }
};

}  // namespace

ScanResult find_suffix_matches(const std::vector<std::string>& roots, const std::vector<std::string>& suffixes,
                               const std::vector<std::string>& skip, size_t entry_limit) {
    Walker walker{suffixes, skip, entry_limit, 0, ScanResult{}};
    if (suffixes.empty()) return walker.result;
    for (const std::string& root : roots) {
        struct stat st;
        if (lstat(root.c_str(), &st) != 0) continue;
        if (S_ISDIR(st.st_mode)) walker.walk(root);
        else if (S_ISREG(st.st_mode)) walker.visit_file(root);
        if (!walker.result.complete) break;
    }
    std::sort(walker.result.matches.begin(), walker.result.matches.end());
    walker.result.matches.erase(std::unique(walker.result.matches.begin(), walker.result.matches.end()),
                                walker.result.matches.end());
    return walker.result;
}

}  // namespace oms::docker
