#include "oms/core/toolchain_homes.hpp"

#include <sys/stat.h>

namespace oms::core {

namespace {

struct HomeDefault {
    const char* variable;
    const char* folder;  // relative to HOME
};

// Only names on the spec's allowlist: a variable the allowlist does not pass
// (VOLTA_HOME, NVM_DIR, BUN_INSTALL, ...) is never set here.
constexpr HomeDefault kDefaults[] = {{"CARGO_HOME", ".cargo"}, {"RUSTUP_HOME", ".rustup"}};

bool is_folder(const std::string& path) {
    struct stat info {};
    return ::stat(path.c_str(), &info) == 0 && S_ISDIR(info.st_mode);
}

}  // namespace

std::map<std::string, std::string> toolchain_home_defaults(const std::string& real_home) {
    std::map<std::string, std::string> out;
    if (real_home.empty() || real_home == "/") return out;
    for (const HomeDefault& entry : kDefaults) {
        const std::string folder = real_home + "/" + entry.folder;
        if (is_folder(folder)) out[entry.variable] = folder;
    }
    return out;
}

}  // namespace oms::core
