// Reading folders raw with getdents64(2): the keypair walks list names and
// entry types without a stat per file, which is most of what keeps them fast.
#pragma once
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <dirent.h>

namespace oms::sdk {

struct LinuxDirent64 {
    uint64_t d_ino;
    int64_t d_off;
    unsigned short d_reclen;
    unsigned char d_type;
    char d_name[];
};

// Calls visit(name, d_type) for every entry of the open folder `fd` but "."
// and "..", reading through `buffer` (8-byte aligned). False when the folder
// could not be read to its end (errno set): a walk must not take part of a
// listing for all of it.
template <class Visit>
bool for_each_entry(int fd, char* buffer, size_t size, Visit&& visit) {
    for (;;) {
        long n = syscall(SYS_getdents64, fd, buffer, size);
        if (n == 0) return true;
        if (n < 0) return false;
        for (long at = 0; at < n;) {
            auto* e = reinterpret_cast<LinuxDirent64*>(buffer + at);
            at += e->d_reclen;
            if (e->d_name[0] == '.' && (e->d_name[1] == 0 || (e->d_name[1] == '.' && e->d_name[2] == 0))) continue;
            visit(static_cast<const char*>(e->d_name), e->d_type);
        }
    }
}

// Some file systems report DT_UNKNOWN: ask with one fstatat (no symlink
// following). Stays DT_UNKNOWN when the entry vanished.
inline unsigned char entry_type(int dir_fd, const char* name, unsigned char type) {
    if (type != DT_UNKNOWN) return type;
    struct stat st;
    if (fstatat(dir_fd, name, &st, AT_SYMLINK_NOFOLLOW) != 0) return DT_UNKNOWN;
    return S_ISDIR(st.st_mode) ? DT_DIR : S_ISLNK(st.st_mode) ? DT_LNK : DT_REG;
}

}  // namespace oms::sdk
