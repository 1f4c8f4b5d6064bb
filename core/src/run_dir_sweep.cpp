#include "oms/core/run_dir_sweep.hpp"

#include "oms/core/run_dir.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <ctime>
#include <filesystem>
#include <string>
#include <vector>

namespace oms::core {

namespace {

constexpr time_t kSweepInterval = 10 * 60;
constexpr time_t kUnlockedAge = 24 * 60 * 60;

// Ours, a real folder (not a link another user planted), private.
bool our_run_folder(const std::string& path, struct stat& info) {
    return lstat(path.c_str(), &info) == 0 && S_ISDIR(info.st_mode) && info.st_uid == getuid() &&
           (info.st_mode & 077) == 0;
}

bool abandoned(const std::string& path, const struct stat& folder) {
    int fd = open((path + "/" + kRunDirOwnerFile).c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) return errno == ENOENT && folder.st_mtime + kUnlockedAge < time(nullptr);
    bool free = flock(fd, LOCK_EX | LOCK_NB) == 0;  // a live oms holds it
    close(fd);
    return free;
}

std::vector<std::string> run_folder_names(const std::string& base) {
    std::vector<std::string> names;
    DIR* dir = opendir(base.c_str());
    if (!dir) return names;
    const size_t prefix = std::strlen(kRunDirPrefix);
    while (dirent* entry = readdir(dir))
        if (std::strncmp(entry->d_name, kRunDirPrefix, prefix) == 0) names.emplace_back(entry->d_name);
    closedir(dir);
    return names;
}

}  // namespace

int sweep_abandoned_run_dirs(const std::string& base) {
    int removed = 0;
    for (const auto& name : run_folder_names(base)) {
        std::string path = base + "/" + name;
        struct stat info {};
        if (!our_run_folder(path, info) || !abandoned(path, info)) continue;
        remove_run_folder(path);
        ++removed;
    }
    return removed;
}

void sweep_abandoned_run_dirs_when_due(const std::string& base, const std::string& state_dir) {
    std::string stamp = state_dir + "/last-run-dir-sweep";
    struct stat info {};
    if (stat(stamp.c_str(), &info) == 0 && info.st_mtime + kSweepInterval > time(nullptr)) return;
    std::error_code error;
    std::filesystem::create_directories(state_dir, error);
    int fd = open(stamp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0) return;  // no state folder: sweeping every time would cost each command
    futimens(fd, nullptr);
    close(fd);
    sweep_abandoned_run_dirs(base);
}

}  // namespace oms::core
