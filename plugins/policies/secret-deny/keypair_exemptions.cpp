#include "keypair_exemptions.hpp"

#include <sys/stat.h>

#include <filesystem>
#include <fnmatch.h>
#include <sstream>

namespace oms::policies {

namespace {

namespace fs = std::filesystem;

std::vector<std::string> split(const std::string& path) {
    std::vector<std::string> parts;
    std::stringstream in(path);
    for (std::string part; std::getline(in, part, '/');)
        if (!part.empty()) parts.push_back(part);
    return parts;
}

bool match_parts(const std::vector<std::string>& pattern, size_t p, const std::vector<std::string>& path, size_t i) {
    if (p == pattern.size()) return i == path.size();
    if (pattern[p] == "**") {
        for (size_t skip = i; skip <= path.size(); ++skip)
            if (match_parts(pattern, p + 1, path, skip)) return true;
        return false;
    }
    if (i == path.size()) return false;
    if (fnmatch(pattern[p].c_str(), path[i].c_str(), FNM_PERIOD) != 0) return false;
    return match_parts(pattern, p + 1, path, i + 1);
}

bool has_glob(const std::string& text) { return text.find_first_of("*?[") != std::string::npos; }

std::string absolute_entry(const std::string& entry, const std::string& home, const std::string& worktree) {
    if (entry == "~") return home;
    if (entry.rfind("~/", 0) == 0) return home + entry.substr(1);
    if (!entry.empty() && entry[0] == '/') return entry;
    return worktree + "/" + entry;
}

// The folder to walk: the pattern's leading part without glob characters.
std::string walk_root(const std::string& pattern) {
    std::string root;
    for (const std::string& part : split(pattern)) {
        if (has_glob(part)) break;
        root += "/" + part;
    }
    return root.empty() ? "/" : root;
}

bool ends_with_any(const std::string& path, const std::vector<std::string>& suffixes) {
    for (const std::string& s : suffixes)
        if (!s.empty() && path.size() >= s.size() && path.compare(path.size() - s.size(), s.size(), s) == 0) return true;
    return false;
}

bool is_regular_file(const std::string& path) {
    std::error_code error;
    return fs::is_regular_file(fs::symlink_status(path, error));
}

// True when no folder on the way to `path` (the path itself excluded) is a
// symbolic link: a command can make `keys` a link to a folder elsewhere, and
// the exemption would then name a file there.
bool no_link_on_the_way(const std::string& path) {
    std::string at;
    const std::vector<std::string> parts = split(path);
    for (size_t i = 0; i + 1 < parts.size(); ++i) {
        at += "/" + parts[i];
        struct stat info {};
        if (::lstat(at.c_str(), &info) != 0) return false;
        if (S_ISLNK(info.st_mode)) return false;
    }
    return true;
}

}  // namespace

bool glob_matches(const std::string& pattern, const std::string& path) {
    return match_parts(split(pattern), 0, split(path), 0);
}

std::vector<Exemption> resolve_keypair_exemptions(const std::vector<std::string>& entries, const std::string& home,
                                                  const std::string& worktree, const std::vector<std::string>& suffixes,
                                                  size_t limit) {
    std::vector<Exemption> out;
    for (const std::string& entry : entries) {
        const std::string pattern = fs::path(absolute_entry(entry, home, worktree)).lexically_normal().string();
        if (!has_glob(pattern)) {
            // Links are not followed: the exemption names a file, not where a link may point.
            if (is_regular_file(pattern) && no_link_on_the_way(pattern) && ends_with_any(pattern, suffixes))
                out.push_back({entry, pattern});
            continue;
        }
        // The walk never follows a link below its root; its root is reached with none.
        const std::string root = walk_root(pattern);
        if (!no_link_on_the_way(root + "/x")) continue;
        std::error_code error;
        size_t seen = 0;
        fs::recursive_directory_iterator walk(root, fs::directory_options::skip_permission_denied, error);
        for (; !error && walk != fs::recursive_directory_iterator() && seen++ < limit; walk.increment(error)) {
            const std::string path = walk->path().string();
            if (ends_with_any(path, suffixes) && is_regular_file(path) && glob_matches(pattern, path))
                out.push_back({entry, path});
        }
    }
    return out;
}

}  // namespace oms::policies
