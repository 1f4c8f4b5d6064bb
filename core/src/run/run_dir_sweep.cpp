#include "oms/core/run_dir_sweep.hpp"

#include "oms/core/folder_removal.hpp"
#include "oms/core/run_dir.hpp"

#include <errno.h>
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

// Everything below goes through descriptors: commands can write the temp
// folder, so any path could be swapped for a link between two calls.

// The taken lock of an abandoned folder (kept until it is removed, so two
// sweeps never remove the same folder), -2 for an old folder with no .owner
// at all, -1 when the folder is in use or not ours to judge. O_NONBLOCK: a
// command could have put a FIFO there, and opening one would wait forever.
int claim_abandoned(int folder, const struct stat& info) {
    int lock = openat(folder, kRunDirOwnerFile, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (lock < 0) return errno == ENOENT && info.st_mtime + kUnlockedAge < time(nullptr) ? -2 : -1;
    struct stat lock_info {};
    if (fstat(lock, &lock_info) != 0 || !S_ISREG(lock_info.st_mode) || flock(lock, LOCK_EX | LOCK_NB) != 0) {
        close(lock);
        return -1;
    }
    return lock;
}

}  // namespace

int sweep_abandoned_run_dirs(const std::string& base_path) {
    // Never through a link, and only a folder of ours: another user could
    // have put either at the path, leading to folders of ours elsewhere.
    int base = open(base_path.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (base < 0) return 0;
    struct stat base_info {};
    if (fstat(base, &base_info) != 0 || base_info.st_uid != geteuid()) {
        close(base);
        return 0;
    }
    int removed = 0;
    const size_t prefix = std::strlen(kRunDirPrefix);
    for (const auto& name : folder_entries(base)) {
        if (name.compare(0, prefix, kRunDirPrefix) != 0) continue;
        struct stat info {};
        // Ours only; owner rights given back (its command may have taken them).
        int folder = open_subfolder(base, name.c_str(), geteuid(), info);
        if (folder < 0) continue;
        int lock = claim_abandoned(folder, info);
        if (lock != -1) {
            remove_folder_contents(folder);
            if (unlinkat(base, name.c_str(), AT_REMOVEDIR) == 0) ++removed;
        }
        if (lock >= 0) close(lock);
        close(folder);
    }
    close(base);
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
