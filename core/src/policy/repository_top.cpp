#include "oms/core/repository_top.hpp"

#include "oms/core/protected_folders.hpp"

#include <oms/path.hpp>

#include <sys/stat.h>

#include <algorithm>

namespace oms::core {

namespace {

bool is_stop(const std::string& folder, const std::vector<std::string>& homes) {
    if (folder == "/" || folder.empty() || folder == "/dev/shm" || is_system_temp_folder(folder)) return true;
    return std::any_of(homes.begin(), homes.end(),
                       [&](const std::string& home) { return sdk::path::is_inside(home, folder); });
}

// A .git folder or file, never a link or anything else.
bool holds_git(const std::string& folder) {
    struct stat info {};
    if (::lstat((folder + "/.git").c_str(), &info) != 0) return false;
    return S_ISDIR(info.st_mode) || S_ISREG(info.st_mode);
}

}  // namespace

std::optional<std::string> repository_top(const std::string& folder) {
    const std::vector<std::string> homes = home_folders();
    for (std::string at = resolved_path(folder); !is_stop(at, homes); at = sdk::path::parent_of(at))
        if (holds_git(at)) return at;
    return std::nullopt;
}

std::optional<std::string> subfolder_note(const std::string& current) {
    const std::string here = resolved_path(current);
    const auto top = repository_top(here);
    if (!top || *top == here) return std::nullopt;
    return "oms: the worktree is the current folder " + here + ", a subfolder of the repository " + *top +
           ": the command cannot read or write the rest of it. Pass --worktree " + *top +
           " to give it the whole repository.";
}

}  // namespace oms::core
