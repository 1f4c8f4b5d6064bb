#include "oms/core/private_home_links.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <string>

namespace oms::core {

namespace {

// The spec's list, fnm's Linux folder and the shim-based managers
// (toolchain-roots opens the same folders for reading).
const char* const kFolders[] = {".cargo", ".rustup", ".local/share/solana", ".avm",   ".nvm",
                                ".volta", ".bun",    ".fnm",                ".local/share/fnm",
                                ".pyenv", ".rbenv",  ".asdf",               ".local/share/mise", nullptr};

bool is_folder(const std::string& path) {
    struct stat info {};
    return ::stat(path.c_str(), &info) == 0 && S_ISDIR(info.st_mode);
}

// The folders between the private HOME and the link (".local/share"), 0700.
bool make_parents(const std::string& private_home, const std::string& relative) {
    for (size_t slash = relative.find('/'); slash != std::string::npos; slash = relative.find('/', slash + 1)) {
        const std::string folder = private_home + "/" + relative.substr(0, slash);
        if (::mkdir(folder.c_str(), 0700) != 0 && !is_folder(folder)) return false;
    }
    return true;
}

}  // namespace

const char* const* toolchain_folders() { return kFolders; }

void link_toolchains_into_private_home(const std::string& real_home, const std::string& private_home) {
    if (real_home.empty() || real_home == "/" || real_home == private_home) return;
    for (const char* const* folder = kFolders; *folder; ++folder) {
        const std::string real = real_home + "/" + *folder;
        if (!is_folder(real)) continue;
        const std::string link = private_home + "/" + *folder;
        if (!make_parents(private_home, *folder) || ::symlink(real.c_str(), link.c_str()) != 0)
            std::fprintf(stderr, "oms: warning: cannot link %s into the private HOME; tools that look for it "
                                 "there will not find it\n", real.c_str());
    }
}

}  // namespace oms::core
