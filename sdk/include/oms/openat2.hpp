// openat2(2) (Linux 5.6, older than any kernel with Landlock), called
// directly: glibc 2.36 has no wrapper.
#pragma once
#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdint>

namespace oms::sdk {

inline int open_resolved(int dir_fd, const char* path, uint64_t flags, uint64_t resolve) {
    constexpr long kOpenat2 = 437;
    open_how how{};
    how.flags = flags;
    how.resolve = resolve;
    return static_cast<int>(syscall(kOpenat2, dir_fd, path, &how, sizeof how));
}

// O_PATH descriptor of `path`, no component a symbolic link (-1, ELOOP if one is).
inline int open_no_links(const char* path) {
    return open_resolved(AT_FDCWD, path, O_PATH | O_CLOEXEC, RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS);
}

}  // namespace oms::sdk
