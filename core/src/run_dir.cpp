#include "oms/core/run_dir.hpp"

#include "oms/core/error.hpp"
#include "oms/core/paths.hpp"

#include <sys/stat.h>

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

RunDir::RunDir() {
    // The parent's TMPDIR, resolved: sandboxes compare canonical paths.
    std::string base = canonical_or_absolute(env_value("TMPDIR").value_or("/tmp"));
    std::string pattern = base + "/oms-run-XXXXXX";
    if (mkdtemp(pattern.data()) == nullptr)
        throw UserError(kExitSoftware, "cannot create a private run folder in " + base);
    root_ = pattern;
    home_ = root_ + "/home";
    temp_ = root_ + "/tmp";
    make_private_dir(home_);
    make_private_dir(temp_);
}

RunDir::~RunDir() {
    make_removable(root_);
    std::error_code error;
    fs::remove_all(root_, error);
}

}  // namespace oms::core
