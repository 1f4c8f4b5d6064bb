// Which file systems the keypair search trusts, and for what. Both the scan
// cache (folder times) and the scan keeper (inotify events) need every
// change to a folder to pass through this kernel's VFS on that very folder;
// neither trusts overlayfs, whose lower layers change beneath it.
#pragma once
#include <sys/vfs.h>

#include <cstdint>

namespace oms::sdk {

// Local file systems whose every change goes through this kernel's VFS,
// which keeps folder times and raises inotify events. Not a network or FUSE
// file system (a server or a daemon says what changed), not FAT (no ctime).
inline bool changed_only_through_this_kernel(uint64_t type) {
    switch (type) {
    case 0xEF53:      // ext2, ext3, ext4
    case 0x58465342:  // xfs
    case 0x9123683E:  // btrfs
    case 0x01021994:  // tmpfs
    case 0xF2F52010:  // f2fs
    case 0xca451a4e:  // bcachefs
        return true;
    default:
        return false;
    }
}

inline uint64_t file_system_type(int fd) {
    struct statfs fs;
    return fstatfs(fd, &fs) == 0 ? static_cast<uint64_t>(fs.f_type) : 0;
}

}  // namespace oms::sdk
