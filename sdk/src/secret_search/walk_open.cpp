#include "walk_open.hpp"

#include <oms/scoped_fd.hpp>

#include <oms/sdk.hpp>

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>

namespace oms::sdk {

namespace {

constexpr mode_t kOwnerReadSearch = S_IRUSR | S_IXUSR;
constexpr int kFolderFlags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;

// The folder is opened as a path first (that needs no right on it), checked
// to be ours, changed through /proc (fchmod refuses O_PATH descriptors) and
// opened from that same descriptor: a link swapped in meanwhile changes
// nothing. Returns the listable descriptor or -1 (errno set).
int open_after_restoring_rights(int at, const char* name) {
    ScopedFd handle(openat(at, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (handle.get() < 0) return -1;
    struct stat st;
    if (fstat(handle.get(), &st) != 0) return -1;
    if (st.st_uid != geteuid()) {
        errno = EACCES;
        return -1;
    }
    const std::string by_descriptor = "/proc/self/fd/" + std::to_string(handle.get());
    if (chmod(by_descriptor.c_str(), (st.st_mode & 07777) | kOwnerReadSearch) != 0) return -1;
    return openat(handle.get(), ".", kFolderFlags);
}

// Another user's folder this user may neither list nor write: nothing in it
// is the user's (the user could not have put a file there), and the command
// runs as the user with fewer rights still. Another user's private folder
// in a shared /tmp is the usual one. One the user may write but not list (a
// drop box) could hold the user's keypair under a name only the user knows:
// that one still stops the run.
bool not_the_users(int at, const char* name) {
    struct stat st;
    if (fstatat(at, name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISDIR(st.st_mode) || st.st_uid == geteuid())
        return false;
    const int flags = AT_EACCESS | AT_SYMLINK_NOFOLLOW;
    return faccessat(at, name, R_OK, flags) != 0 && errno == EACCES && faccessat(at, name, W_OK, flags) != 0 &&
           errno == EACCES;
}

}  // namespace

bool restore_owner_rights(int fd) {
    struct stat st;
    if (fstat(fd, &st) != 0 || st.st_uid != geteuid() || (st.st_mode & kOwnerReadSearch) == kOwnerReadSearch)
        return false;
    return fchmod(fd, (st.st_mode & 07777) | kOwnerReadSearch) == 0;
}

int open_walk_folder(int at, const char* name, const std::string& path, const ScanRequest& request) {
    int fd = openat(at, name, kFolderFlags);
    if (fd >= 0) return fd;
    int error = errno;
    if (gone_or_not_a_folder(error) || error == ENAMETOOLONG) return -1;
    if (error == EACCES || error == EPERM) {
        fd = open_after_restoring_rights(at, name);
        if (fd >= 0) return fd;
        if (gone_or_not_a_folder(errno)) return -1;
        if (request.pass_over_closed_folders_of_others && not_the_users(at, name)) {
            errno = EACCES;
            return -1;
        }
    }
    unreadable_folder(request.backend, path, error);
}

void unreadable_folder(const std::string& backend, const std::string& path, int error) {
    throw Error(
        OMS_ERR_FAILED,
        speaker(backend) + ": the folder " + path + " cannot be read (" + std::strerror(error) +
            "), so keypair files in it could not be looked for; the command did not run. An earlier command "
            "may have made it unreadable: give it back read and search rights (chmod u+rx, as the user who "
            "owns it; sudo chown first if another user owns it) or delete it, then run again");
}

}  // namespace oms::sdk
