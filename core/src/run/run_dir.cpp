#include "oms/core/run_dir.hpp"

#include "oms/core/error.hpp"
#include "oms/core/folder_removal.hpp"
#include "oms/core/folder_writes.hpp"
#include "oms/core/paths.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

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

std::string run_dir_base() {
    // The parent's TMPDIR, resolved: sandboxes compare canonical paths.
    return canonical_or_absolute(env_value("TMPDIR").value_or("/tmp"));
}

RunDir::RunDir() {
    std::string base = run_dir_base();
    std::string pattern = base + "/" + kRunDirPrefix + "XXXXXX";
    if (mkdtemp(pattern.data()) == nullptr) fail("cannot create a private run folder in " + base);
    root_ = pattern;
    name_ = root_.substr(base.size() + 1);
    home_ = root_ + "/home";
    temp_ = root_ + "/tmp";
    refusals_ = root_ + "/" + kRunDirRefusalFile;
    base_fd_ = open(base.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    root_fd_ = base_fd_ < 0 ? -1 : openat(base_fd_, name_.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
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
