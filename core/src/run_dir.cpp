#include "oms/core/run_dir.hpp"

#include "oms/core/error.hpp"
#include "oms/core/paths.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>

namespace fs = std::filesystem;

namespace oms::core {

namespace {

void make_private_dir(const std::string& path) {
    if (mkdir(path.c_str(), 0700) != 0)
        throw UserError(kExitSoftware, "cannot create the private folder " + path);
}

// Commands may leave read-only folders behind (chmod 0500); open them up so
// the removal cannot fail half-way.
void make_removable(const std::string& root) {
    std::error_code error;
    for (auto it = fs::recursive_directory_iterator(root, fs::directory_options::skip_permission_denied, error);
         it != fs::recursive_directory_iterator(); it.increment(error)) {
        if (it->is_directory(error) && !it->is_symlink(error))
            fs::permissions(it->path(), fs::perms::owner_all, fs::perm_options::add, error);
    }
}

}  // namespace

std::string run_dir_base() {
    // The parent's TMPDIR, resolved: sandboxes compare canonical paths.
    return canonical_or_absolute(env_value("TMPDIR").value_or("/tmp"));
}

void remove_run_folder(const std::string& root) {
    make_removable(root);
    std::error_code error;
    fs::remove_all(root, error);
}

RunDir::RunDir() {
    std::string base = run_dir_base();
    std::string pattern = base + "/" + kRunDirPrefix + "XXXXXX";
    if (mkdtemp(pattern.data()) == nullptr)
        throw UserError(kExitSoftware, "cannot create a private run folder in " + base);
    root_ = pattern;
    home_ = root_ + "/home";
    temp_ = root_ + "/tmp";
    make_private_dir(home_);
    make_private_dir(temp_);
    // Held until the folder is gone; the descriptor closes at exec, so only
    // this oms holds it (see sweep_abandoned_run_dirs).
    owner_lock_ = open((root_ + "/" + kRunDirOwnerFile).c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (owner_lock_ < 0 || flock(owner_lock_, LOCK_EX | LOCK_NB) != 0) {
        remove_run_folder(root_);
        throw UserError(kExitSoftware, "cannot lock the private run folder " + root_);
    }
}

RunDir::~RunDir() {
    remove_run_folder(root_);
    close(owner_lock_);
}

}  // namespace oms::core
