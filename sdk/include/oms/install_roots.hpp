// The toolchain managers' install folders under HOME that the landlock
// backend does not search for keypair files at run start, and why that is
// safe: only the user's own installs write them (a manager unpacking a
// version), no command of a run can write them (they are read roots, never
// write roots), so no keypair there can have been put or moved there by a
// command, and no tool writes a keypair there. Searching them cost one stat
// per folder at every start (a pyenv holds 10,000 folders and more).
// Kept in one place so `oms explain` (core) and the backend cannot drift.
//
// npm's cache (~/.npm/_cacache, ~/.npm/_npx) is among them: a run's writes
// there land in a per-run layer thrown away with the run (a scratch tree),
// and npm names what it stores by content hash (_cacache) or installs
// published packages (_npx), so only the user's own npm fills them.
//
// ~/.cargo is not among them: Cargo's download caches in it are write roots
// of every run, and `cargo install` writes its bin folder.
#pragma once
#include <oms/path.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace oms::install_roots {

inline constexpr const char* kFolders[] = {".rustup", ".local/share/solana", ".avm", ".nvm", ".volta", ".bun",
                                           ".fnm", ".local/share/fnm", ".pyenv", ".rbenv", ".asdf",
                                           ".local/share/mise", ".npm/_cacache", ".npm/_npx"};

// The install folder (HOME/<one of kFolders>) holding `path`, or "" when
// there is none or when a write root of the run lies in it or holds it
// (then commands can write there, and it is searched like any root).
// `write_roots` are the roots whose writes reach the host (WRITE_ALLOW_TREE):
// a scratch tree's writes are thrown away with the run.
// Paths are real paths (no links), as the rules hold them.
inline std::string unsearched_install_root(std::string_view path, const std::string& home,
                                           const std::vector<std::string>& write_roots) {
    if (home.empty() || home == "/" || home[0] != '/') return "";
    for (const char* folder : kFolders) {
        const std::string root = home + "/" + folder;
        if (!sdk::path::is_inside(path, root)) continue;
        for (const auto& written : write_roots)
            if (sdk::path::is_inside(written, root) || sdk::path::is_inside(root, written)) return "";
        return root;
    }
    return "";
}

}  // namespace oms::install_roots
