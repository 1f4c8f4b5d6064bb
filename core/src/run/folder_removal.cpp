#include "oms/core/folder_removal.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <string>
#include <vector>

namespace oms::core {

namespace {

constexpr int kMaxDepth = 256;

void remove_contents(int folder, int depth) {
    if (depth > kMaxDepth) return;
    for (const auto& name : folder_entries(folder)) {
        struct stat info {};
        if (fstatat(folder, name.c_str(), &info, AT_SYMLINK_NOFOLLOW) != 0) continue;
        if (!S_ISDIR(info.st_mode)) {
            unlinkat(folder, name.c_str(), 0);
            continue;
        }
        int child = open_subfolder(folder, name.c_str(), kAnyOwner, info);
        if (child < 0) continue;
        remove_contents(child, depth + 1);
        close(child);
        unlinkat(folder, name.c_str(), AT_REMOVEDIR);
    }
}

}  // namespace

std::vector<std::string> folder_entries(int folder) {
    std::vector<std::string> names;
    int copy = dup(folder);
    if (copy < 0) return names;
    DIR* listing = fdopendir(copy);
    if (!listing) {
        close(copy);
        return names;
    }
    while (dirent* entry = readdir(listing)) {
        std::string name = entry->d_name;
        if (name != "." && name != "..") names.push_back(name);
    }
    closedir(listing);
    return names;
}

int open_subfolder(int parent, const char* name, uid_t owner, struct stat& info) {
    int path_only = openat(parent, name, O_PATH | O_NOFOLLOW | O_DIRECTORY | O_CLOEXEC);
    if (path_only < 0) return -1;
    int folder = -1;
    if (fstat(path_only, &info) == 0 && (owner == kAnyOwner || info.st_uid == owner)) {
        if ((info.st_mode & 0700) != 0700) {
            std::string self = "/proc/self/fd/" + std::to_string(path_only);
            chmod(self.c_str(), (info.st_mode & 07777) | 0700);
        }
        folder = openat(path_only, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    }
    close(path_only);
    return folder;
}

void remove_folder_contents(int folder) { remove_contents(folder, 0); }

}  // namespace oms::core
