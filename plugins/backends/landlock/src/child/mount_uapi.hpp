// The kernel's file-descriptor mount API (open_tree, move_mount, fsopen,
// fsconfig, fsmount, mount_setattr; Linux 5.2 and 5.12, older than any
// kernel with Landlock),
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
constexpr long kFsopen = 430;
constexpr long kFsconfig = 431;
constexpr long kFsmount = 432;
constexpr long kMountSetattr = 442;

constexpr unsigned kOpenTreeClone = 1;
constexpr unsigned kAtRecursive = 0x8000;
constexpr unsigned kMoveMountFromEmptyPath = 0x00000004;
constexpr unsigned kMoveMountToEmptyPath = 0x00000040;
constexpr uint64_t kMountAttrReadOnly = 0x00000001;
constexpr unsigned kMountAttrNoSuid = 0x00000002;
constexpr unsigned kMountAttrNoDev = 0x00000004;
constexpr unsigned kMountAttrNoExec = 0x00000008;
constexpr unsigned kFsopenCloexec = 1;
constexpr unsigned kFsmountCloexec = 1;
constexpr unsigned kFsconfigSetString = 1;
constexpr unsigned kFsconfigCmdCreate = 6;

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

// The tree and every mount below it read-only, and nodev when asked.
inline int set_read_only(int tree, bool no_devices = false) {
    MountAttr attr{kMountAttrReadOnly | (no_devices ? kMountAttrNoDev : 0), 0, 0, 0};
    return static_cast<int>(syscall(kMountSetattr, tree, "", AT_EMPTY_PATH | kAtRecursive, &attr, sizeof attr));
}

// No device file opens on the tree or any mount below it.
inline int set_no_devices(int tree) {
    MountAttr attr{kMountAttrNoDev, 0, 0, 0};
    return static_cast<int>(syscall(kMountSetattr, tree, "", AT_EMPTY_PATH | kAtRecursive, &attr, sizeof attr));
}

// Read-only, and no device, set-id or program on it: what a mask of a file
// the keypair search found is made of (mount_uapi's caller covers it with
// /dev/null, which a nodev mount makes fail to open with EACCES).
inline int set_unopenable_device(int tree) {
    MountAttr attr{kMountAttrReadOnly | kMountAttrNoDev | kMountAttrNoSuid | kMountAttrNoExec, 0, 0, 0};
    return static_cast<int>(syscall(kMountSetattr, tree, "", AT_EMPTY_PATH, &attr, sizeof attr));
}

// Only this mount, not the ones attached below it.
inline int set_read_only_here(int tree) {
    MountAttr attr{kMountAttrReadOnly, 0, 0, 0};
    return static_cast<int>(syscall(kMountSetattr, tree, "", AT_EMPTY_PATH, &attr, sizeof attr));
}

inline int fs_open(const char* type) { return static_cast<int>(syscall(kFsopen, type, kFsopenCloexec)); }

inline int fs_set(int fs, const char* key, const char* value) {
    return static_cast<int>(syscall(kFsconfig, fs, kFsconfigSetString, key, value, 0));
}

inline int fs_create(int fs) { return static_cast<int>(syscall(kFsconfig, fs, kFsconfigCmdCreate, nullptr, nullptr, 0)); }

// A detached mount of the configured file system, to be attached with move_mount_onto.
inline int fs_mount(int fs, unsigned attributes) {
    return static_cast<int>(syscall(kFsmount, fs, kFsmountCloexec, attributes));
}

inline int move_mount_onto(int tree, int target) {
    return static_cast<int>(
        syscall(kMoveMount, tree, "", target, "", kMoveMountFromEmptyPath | kMoveMountToEmptyPath));
}

}  // namespace oms::landlock::mount_uapi
