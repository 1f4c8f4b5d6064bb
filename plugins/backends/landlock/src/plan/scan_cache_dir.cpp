#include "scan_cache_dir.hpp"

#include "path_utils.hpp"

#include <oms/path.hpp>

#include <sys/stat.h>
#include <unistd.h>

namespace oms::landlock {

namespace {

bool private_folder(const std::string& path) {
    struct stat st;
    if (lstat(path.c_str(), &st) != 0) {
        if (mkdir(path.c_str(), 0700) != 0 || lstat(path.c_str(), &st) != 0) return false;
    }
    return S_ISDIR(st.st_mode) && st.st_uid == geteuid() && (st.st_mode & 077) == 0;
}

}  // namespace

std::string scan_cache_dir(const std::string& state_dir, const std::vector<std::string>& write_roots) {
    if (state_dir.empty() || state_dir[0] != '/') return "";
    auto state = canonical(state_dir);
    if (!state) return "";
    const std::string folder = (*state == "/" ? "" : *state) + "/landlock-scan";
    for (const auto& root : write_roots) {
        const std::string real = canonical(root).value_or(root);
        if (sdk::path::is_inside(folder, real) || sdk::path::is_inside(real, folder)) return "";
    }
    return private_folder(folder) ? folder : "";
}

}  // namespace oms::landlock
