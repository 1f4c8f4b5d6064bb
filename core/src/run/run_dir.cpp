#include "oms/core/run_dir.hpp"

#include "oms/core/error.hpp"
#include "oms/core/folder_removal.hpp"
#include "oms/core/folder_writes.hpp"
#include "oms/core/paths.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>

namespace oms::core {

namespace {

[[noreturn]] void fail(const std::string& what) { throw UserError(kExitSoftware, what); }

// The lock is taken on a file under a temporary name and only then renamed
// to .owner, so a sweep never sees an .owner that nobody holds yet.
int lock_as_owner(int root) {
    const std::string pending = std::string(kRunDirOwnerFile) + ".new";
    int fd = openat(root, pending.c_str(), O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0) return -1;
    if (flock(fd, LOCK_EX | LOCK_NB) != 0 || renameat(root, pending.c_str(), root, kRunDirOwnerFile) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

}  // namespace

std::string temp_folder_base() {
    // The parent's TMPDIR, resolved: sandboxes compare canonical paths.
    return canonical_or_absolute(env_value("TMPDIR").value_or("/tmp"));
}

std::string run_dir_base() {
    // Not TMPDIR: runs started with different ones would each hide only
    // their own base, and a TMPDIR below a folder a command can write could
    // be renamed or linked away (commands cannot rename /tmp).
    return canonical_or_absolute("/tmp") + "/" + kRunDirBasePrefix + std::to_string(geteuid());
}

int open_run_dir_base() {
    const std::string base = run_dir_base();
    if (mkdir(base.c_str(), 0700) != 0 && errno != EEXIST) fail("cannot create the run folders' folder " + base);
    // Not a link, and nobody else's: another user who made it first (or a
    // command that left a link there) would get every run's private folder.
    const int fd = open(base.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0 || st.st_uid != geteuid()) {
        if (fd >= 0) close(fd);
        fail("refusing to keep private run folders in " + base +
             ": it is not a folder of yours (a link, or another user's); it must be removed (by its owner, or "
             "root) before oms can run");
    }
    // Nobody else lists it or makes anything in it; anyone may pass through
    // (each run folder in it is 0700): a container user other than oms's
    // reaches the HOME mounted below it, and a container runtime gives a
    // tmpfs over it the mode of the folder it covers.
    if ((st.st_mode & 07777) != kRunDirBaseMode && fchmod(fd, kRunDirBaseMode) != 0) {
        close(fd);
        fail("cannot set the mode of the run folders' folder " + base);
    }
    return fd;
}

RunDir::RunDir() {
    std::string base = run_dir_base();
    base_fd_ = open_run_dir_base();
    std::string pattern = base + "/" + kRunDirPrefix + "XXXXXX";
    if (mkdtemp(pattern.data()) == nullptr) {
        release();
        fail("cannot create a private run folder in " + base);
    }
    root_ = pattern;
    name_ = root_.substr(base.size() + 1);
    home_ = root_ + "/home";
    temp_ = root_ + "/tmp";
    refusals_ = root_ + "/" + kRunDirRefusalFile;
    // Through the folder checked above: the folder made must be in it.
    root_fd_ = openat(base_fd_, name_.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (root_fd_ < 0 || mkdirat(root_fd_, "home", 0700) != 0 || mkdirat(root_fd_, "tmp", 0700) != 0 ||
        !write_new_file_at(root_fd_, kRunDirRefusalFile, "") ||
        (owner_lock_ = lock_as_owner(root_fd_)) < 0) {
        if (root_fd_ < 0) rmdir(root_.c_str());  // still empty: nothing was made in it
        release();
        fail("cannot set up the private run folder " + root_);
    }
}

RunDir::~RunDir() { release(); }

void RunDir::release() {
    if (root_fd_ >= 0) {
        fchmod(root_fd_, 0700);  // the command may have taken our rights away (chmod 500 $HOME/..)
        remove_folder_contents(root_fd_);
        close(root_fd_);
        unlinkat(base_fd_, name_.c_str(), AT_REMOVEDIR);
    }
    if (base_fd_ >= 0) close(base_fd_);
    if (owner_lock_ >= 0) close(owner_lock_);  // last: the folder is gone by now
    root_fd_ = base_fd_ = owner_lock_ = -1;
}

}  // namespace oms::core
