#include "oms/core/private_home_links.hpp"

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

namespace oms::core {

namespace {

// The spec's list, fnm's Linux folder, the shim-based managers and the
// user installs of pipx, Go and gem (toolchain-roots opens the same folders
// for reading, and says why each is safe to lend).
const char* const kFolders[] = {".cargo",          ".rustup",           ".local/share/solana", ".avm",
                                ".nvm",            ".volta",            ".bun",                ".fnm",
                                ".local/share/fnm", ".pyenv",           ".rbenv",              ".asdf",
                                ".local/share/mise", ".local/share/pipx", ".local/pipx",       "go/bin",
                                "go/pkg/mod",      ".gem/ruby",         ".local/share/gem/ruby", nullptr};

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

// pip's user site of each Python version, relative to HOME
// (".local/lib/python3.12/site-packages"): Python finds it through HOME,
// the private one inside the sandbox. Only site-packages, as toolchain-roots
// lends it; the version folder around it is made in the private HOME.
std::vector<std::string> python_user_site_folders(const std::string& real_home) {
    std::vector<std::string> out;
    DIR* lib = ::opendir((real_home + "/.local/lib").c_str());
    if (!lib) return out;
    while (const dirent* entry = ::readdir(lib)) {
        const std::string name = entry->d_name;
        if (name.rfind("python", 0) == 0 && name.find('.') != std::string::npos && name.find('/') == std::string::npos)
            out.push_back(".local/lib/" + name + "/site-packages");
    }
    ::closedir(lib);
    std::sort(out.begin(), out.end());
    return out;
}

}  // namespace

const char* const* toolchain_folders() { return kFolders; }

void link_toolchains_into_private_home(const std::string& real_home, const std::string& private_home) {
    if (real_home.empty() || real_home == "/" || real_home == private_home) return;
    std::vector<std::string> folders(kFolders, kFolders + sizeof kFolders / sizeof kFolders[0] - 1);
    for (const std::string& site : python_user_site_folders(real_home)) folders.push_back(site);
    for (const std::string& folder : folders) {
        const std::string real = real_home + "/" + folder;
        if (!is_folder(real)) continue;
        const std::string link = private_home + "/" + folder;
        if (!make_parents(private_home, folder) || ::symlink(real.c_str(), link.c_str()) != 0)
            std::fprintf(stderr, "oms: warning: cannot link %s into the private HOME; tools that look for it "
                                 "there will not find it\n", real.c_str());
    }
}

}  // namespace oms::core
