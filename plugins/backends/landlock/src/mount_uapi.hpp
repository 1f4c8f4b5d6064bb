// The kernel's file-descriptor mount API (open_tree, move_mount,
// mount_setattr; Linux 5.2 and 5.12, older than any kernel with Landlock),
// defined here: glibc 2.36's <sys/mount.h> and <linux/mount.h> clash, and
// older headers lack mount_setattr.
#pragma once
#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdint>

namespace oms::landlock::mount_uapi {

constexpr long kOpenTree = 428;
constexpr long kMoveMount = 429;
constexpr long kMountSetattr = 442;

constexpr unsigned kOpenTreeClone = 1;
constexpr unsigned kAtRecursive = 0x8000;
constexpr unsigned kMoveMountFromEmptyPath = 0x00000004;
constexpr unsigned kMoveMountToEmptyPath = 0x00000040;
constexpr uint64_t kMountAttrReadOnly = 0x00000001;

struct MountAttr {
    uint64_t attr_set;
    uint64_t attr_clr;
    uint64_t propagation;
    uint64_t userns_fd;
};

inline int open_tree_clone(int fd) {
    return static_cast<int>(
        syscall(kOpenTree, fd, "", AT_EMPTY_PATH | kOpenTreeClone | kAtRecursive | O_CLOEXEC));
}

inline int set_read_only(int tree) {
    MountAttr attr{kMountAttrReadOnly, 0, 0, 0};
    return static_cast<int>(syscall(kMountSetattr, tree, "", AT_EMPTY_PATH | kAtRecursive, &attr, sizeof attr));
}

inline int move_mount_onto(int tree, int target) {
    return static_cast<int>(
        syscall(kMoveMount, tree, "", target, "", kMoveMountFromEmptyPath | kMoveMountToEmptyPath));
}

}  // namespace oms::landlock::mount_uapi
