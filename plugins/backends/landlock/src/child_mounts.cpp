#include "child_steps.hpp"

#include <errno.h>
#include <fcntl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>
#include <sys/statvfs.h>

namespace oms::landlock {

namespace {

// A read-only remount of a bind must keep the flags the kernel locked on the
// original mount (nosuid, nodev, ...), or it fails inside a user namespace.
unsigned long kept_flags(const char* target) {
    struct statvfs st;
    if (statvfs(target, &st) != 0) return 0;
    unsigned long flags = 0;
    if (st.f_flag & ST_NOSUID) flags |= MS_NOSUID;
    if (st.f_flag & ST_NODEV) flags |= MS_NODEV;
    if (st.f_flag & ST_NOEXEC) flags |= MS_NOEXEC;
    if (st.f_flag & ST_NOATIME) flags |= MS_NOATIME;
    if (st.f_flag & ST_NODIRATIME) flags |= MS_NODIRATIME;
    if (st.f_flag & ST_RELATIME) flags |= MS_RELATIME;
    return flags;
}

void bind(const ChildSpec& spec, const char* source, const char* target, bool read_only) {
    if (mount(source, target, nullptr, MS_BIND | MS_REC, nullptr) != 0) child_fail(spec, "bind-mount onto", target);
    if (!read_only) return;
    unsigned long flags = MS_BIND | MS_REMOUNT | MS_RDONLY | kept_flags(target);
    if (mount(nullptr, target, nullptr, flags, nullptr) != 0) child_fail(spec, "make read-only", target);
}

// Opens a mask source without following symlinks, checks it is the inode
// the parent created, and returns "/proc/self/fd/<n>" naming exactly it.
void open_verified(const ChildSpec& spec, const char* path, const unsigned long long* id, bool folder,
                   char (&source)[32]) {
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | (folder ? O_DIRECTORY : 0));
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) child_fail(spec, "open the mask source", path);
    if (st.st_dev != id[0] || st.st_ino != id[1]) child_fail(spec, "trust the mask source (it was replaced)", path, EPERM);
    char digits[12];
    int n = 0;
    do {
        digits[n++] = static_cast<char>('0' + fd % 10);
        fd /= 10;
    } while (fd && n < 11);
    const char prefix[] = "/proc/self/fd/";
    int used = 0;
    for (const char* p = prefix; *p; ++p) source[used++] = *p;
    while (n) source[used++] = digits[--n];
    source[used] = '\0';
}

}  // namespace

void apply_mounts(const ChildSpec& spec) {
    // Nothing done here may leak back to the host's mount table.
    if (mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0)
        child_fail(spec, "make the mount namespace private");
    // A mount point cannot be renamed or removed (EBUSY): this pins the
    // folders holding read-only files, so a rename of a parent can't swap them.
    for (const char* path : spec.pin_in_place) bind(spec, path, path, false);
    for (const char* path : spec.read_only) bind(spec, path, path, true);
    if (spec.hide_folders.empty() && spec.hide_files.empty()) return;
    // Opened after unshare: a bind source must belong to this mount namespace.
    char folder[32], file[32];
    open_verified(spec, spec.empty_folder, spec.empty_folder_id, true, folder);
    open_verified(spec, spec.empty_file, spec.empty_file_id, false, file);
    for (const char* path : spec.hide_folders) bind(spec, folder, path, true);
    for (const char* path : spec.hide_files) bind(spec, file, path, true);
}

}  // namespace oms::landlock
