#include "tree_removal.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <string>
#include <vector>

namespace oms::docker {

namespace {

// Empties the folder open as `dir` (closed here), depth first.
void empty_folder(int dir, int depth) {
    fchmod(dir, 0700);  // a command may have made it unreadable
    DIR* listing = fdopendir(dir);
    if (!listing) {
        close(dir);
        return;
    }
    std::vector<std::string> names;
    while (dirent* e = readdir(listing))
        if (std::string(e->d_name) != "." && std::string(e->d_name) != "..") names.push_back(e->d_name);
    for (const std::string& name : names) {
        if (unlinkat(dirfd(listing), name.c_str(), 0) == 0 || errno != EISDIR) continue;
        int sub = openat(dirfd(listing), name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (sub < 0 && errno == EACCES && fchmodat(dirfd(listing), name.c_str(), 0700, AT_SYMLINK_NOFOLLOW) == 0)
            sub = openat(dirfd(listing), name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (sub >= 0 && depth < 256) empty_folder(sub, depth + 1);
        else if (sub >= 0) close(sub);
        unlinkat(dirfd(listing), name.c_str(), AT_REMOVEDIR);
    }
    closedir(listing);
}

}  // namespace

bool remove_tree(const std::string& path) {
    int dir = open(path.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    // The folder itself made unreadable by a command of its owner's uid (chmod 0): its rights back first.
    if (dir < 0 && errno == EACCES && fchmodat(AT_FDCWD, path.c_str(), 0700, AT_SYMLINK_NOFOLLOW) == 0)
        dir = open(path.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (dir >= 0) empty_folder(dir, 0);
    else unlink(path.c_str());  // a link or a file in its place: remove the entry itself
    if (rmdir(path.c_str()) != 0 && errno != ENOENT && errno != ENOTDIR) return false;
    struct stat st;
    return lstat(path.c_str(), &st) != 0;
}

}  // namespace oms::docker
