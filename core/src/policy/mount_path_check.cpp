#include "oms/core/mount_path_check.hpp"

#include "oms/core/error.hpp"
#include "oms/core/paths.hpp"

#include <oms/path.hpp>

#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include <deque>
#include <filesystem>

namespace oms::core {

namespace {

constexpr int kMaxLinks = 40;  // the kernel's own limit

std::deque<std::string> components(const std::string& path) {
    std::deque<std::string> parts;
    size_t start = 0;
    while (start <= path.size()) {
        size_t slash = path.find('/', start);
        if (slash == std::string::npos) slash = path.size();
        std::string part = path.substr(start, slash - start);
        if (!part.empty() && part != ".") parts.push_back(part);
        start = slash + 1;
    }
    return parts;
}

}  // namespace

std::vector<std::string> system_temp_folders() {
    std::vector<std::string> out;
    for (const char* temp : {"/tmp", "/var/tmp", "/dev/shm", "/private/tmp", "/private/var/folders"})
        if (access(temp, F_OK) == 0) out.push_back(canonical_or_absolute(temp));
    return out;
}

std::optional<std::string> planted_link_on_the_way(const std::string& given, const CommandWritable& writable,
                                                   std::string& resolved) {
    resolved = canonical_or_absolute(given);
    if (given.empty()) return std::nullopt;
    // Made absolute without resolving anything: the walk below does that.
    const std::string path = given[0] == '/' ? given : std::filesystem::absolute(given).string();
    resolved = canonical_or_absolute(path);
    std::deque<std::string> rest = components(path);
    std::string done = "/";  // resolved so far, links followed one at a time
    int links = 0;
    while (!rest.empty()) {
        const std::string name = rest.front();
        rest.pop_front();
        if (name == "..") {
            done = sdk::path::parent_of(done);
            continue;
        }
        const std::string next = done == "/" ? "/" + name : done + "/" + name;
        struct stat st;
        if (lstat(next.c_str(), &st) != 0) return std::nullopt;  // missing: handled where it is used
        if (!S_ISLNK(st.st_mode)) {
            done = next;
            continue;
        }
        if (const auto where = writable(done))
            return "goes through the link " + next + " " + *where + ", which a command could have made";
        char target[PATH_MAX];
        const ssize_t length = readlink(next.c_str(), target, sizeof target);
        if (length <= 0 || length >= static_cast<ssize_t>(sizeof target) || ++links > kMaxLinks)
            return "goes through the link " + next + ", which cannot be resolved safely";
        const std::string text(target, static_cast<size_t>(length));
        if (text[0] == '/') done = "/";
        const auto parts = components(text);
        rest.insert(rest.begin(), parts.begin(), parts.end());
    }
    if (resolved != done)
        return "resolved to " + done + " and a moment later to " + resolved + ": a folder on the way is being swapped";
    return std::nullopt;
}

std::string checked_mount_path(const std::string& path, const std::string& worktree, const std::string& flag) {
    std::vector<std::string> writable_folders = system_temp_folders();
    writable_folders.push_back(canonical_or_absolute(worktree));
    const CommandWritable writable = [&](const std::string& folder) -> std::optional<std::string> {
        for (const auto& writable_folder : writable_folders)
            if (sdk::path::is_inside(folder, writable_folder)) return "inside " + writable_folder;
        return std::nullopt;
    };
    std::string resolved;
    if (const auto reason = planted_link_on_the_way(path, writable, resolved))
        throw UserError(kExitRefused, "refusing to run: the " + flag + " folder " + path + " " + *reason + ". Nothing ran.");
    return resolved;
}

}  // namespace oms::core
