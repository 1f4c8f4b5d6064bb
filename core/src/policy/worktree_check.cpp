#include "oms/core/worktree_check.hpp"

#include "oms/core/error.hpp"
#include "oms/core/mount_path_check.hpp"
#include "oms/core/paths.hpp"
#include "oms/core/protected_folders.hpp"

#include <oms/path.hpp>

#include <sys/stat.h>

#include <filesystem>
#include <optional>
#include <vector>

namespace fs = std::filesystem;

namespace oms::core {

namespace {

struct OwnFolder {
    std::string path;
    const char* what;
};

std::vector<OwnFolder> own_folders() {
    return {{resolved_path(fs::path(user_config_file()).parent_path().string()), "oms's config folder"},
            {resolved_path(state_dir()), "oms's state folder"}};
}

// Why `folder` (resolved) cannot be a worktree, or nullopt when it can.
std::optional<std::string> refusal_reason(const std::string& folder) {
    if (folder == "/") return "it is the root folder '/': every file of the machine would be writable by the command";
    for (const std::string& temp : system_temp_folders()) {
        if (folder == temp || sdk::path::is_inside(temp, folder))
            return "it " + std::string(folder == temp ? "is" : "holds") + " the shared temp folder " + temp +
                   ": every program's and every user's files there (sockets, other tasks' files) would be "
                   "readable and writable by the command; make a folder for the task (mktemp -d)";
    }
    for (const std::string& home : home_folders()) {
        if (folder == home)
            return "it is your HOME folder (" + home +
                   "): every file of HOME (~/.bashrc, ~/.ssh, oms's own config) would be readable and writable by "
                   "the command";
        if (sdk::path::is_inside(home, folder))
            return "it holds your HOME folder (" + home + "): every file of HOME would be writable by the command";
    }
    for (const OwnFolder& own : own_folders()) {
        const char* relation = folder == own.path                       ? "is "
                               : sdk::path::is_inside(own.path, folder) ? "holds "
                               : sdk::path::is_inside(folder, own.path) ? "lies inside "
                                                                        : nullptr;
        if (relation)
            return std::string("it ") + relation + own.what + " (" + own.path +
                   "): a command could rewrite what the next oms run trusts";
    }
    return std::nullopt;
}

bool holds_home(const std::string& folder) {
    for (const std::string& home : home_folders())
        if (sdk::path::is_inside(home, folder)) return true;
    return false;
}

// Where a command could have made a link on the way to a worktree: a system
// temp folder, or a repository (a `.git` in the folder or above it, HOME and
// above not counted), which may be another task's worktree.
std::optional<std::string> commands_write_in(const std::string& folder) {
    for (const std::string& temp : system_temp_folders())
        if (sdk::path::is_inside(folder, temp)) return "inside " + temp;
    for (std::string up = folder;; up = fs::path(up).parent_path().string()) {
        struct stat st;
        if (!holds_home(up) && lstat((up + "/.git").c_str(), &st) == 0) return "inside the repository " + up;
        if (up == "/" || up.empty()) return std::nullopt;
    }
}

}  // namespace

bool may_be_worktree(const std::string& folder) { return !refusal_reason(resolved_path(folder)); }

std::string checked_worktree(const std::string& worktree) {
    // One resolution, link by link; every check below looks at its result.
    // A worktree reached through a link another task's command planted (task
    // A works in /repo, task B is given /repo/packages/x, which A's command
    // made a link to ~/other-project) would open that folder read-write to B.
    std::string folder;
    const auto planted = planted_link_on_the_way(worktree, commands_write_in, folder);
    const auto reason = refusal_reason(folder);
    if (!reason && !planted) return folder;
    if (!reason)
        throw UserError(kExitRefused, "refusing the worktree '" + worktree + "': it " + *planted +
                                          ". Nothing ran. Pass the project's own folder, with no link on the way.");
    std::error_code error;
    std::string as_given = fs::absolute(worktree, error).lexically_normal().string();
    while (as_given.size() > 1 && as_given.back() == '/') as_given.pop_back();
    const std::string via_link = folder == as_given ? "" : " (which resolves to '" + folder + "')";
    throw UserError(kExitRefused, "refusing the worktree '" + worktree + "'" + via_link + ": " + *reason +
                                      ". Nothing ran. Pass the project's own folder instead (cd into the repository, "
                                      "or --worktree /path/to/repository).");
}

void refuse_changed_worktree(const std::string& checked, const std::string& now) {
    if (checked != now)
        throw UserError(kExitRefused, "refusing the worktree: it resolved to '" + checked + "' when checked and to '" +
                                          now + "' a moment later (a folder on the way is being swapped). Nothing ran.");
}

}  // namespace oms::core
