// The private HOME's files (the core's .gitconfig and .npmrc, links to the
// toolchain folders the container sees), carried into a container's HOME.
// The core writes them into the run's private HOME on the host for every
// backend; a container's HOME is a tmpfs of its own, so the docker backend
// reads them there (private_home_files.hpp) and hands them to the runner in
// the command's environment as kVariable (one-shot: through the docker CLI's
// environment, never an argument; warm: over the runner's socket). The
// runner removes the variable and writes the entries into HOME before the
// command starts, every command: in a warm container, whose HOME the task's
// commands share, each command finds them as the core made them for it,
// whatever an earlier command did to them. Shared by both sides.
#pragma once
#include <string>
#include <vector>

namespace oms::docker::home_seed {

inline constexpr const char* kVariable = "OMS_HOME_FILES";

struct Entry {
    bool link = false;   // a symbolic link to `data`; else a file (0600) holding `data`
    std::string name;    // relative to HOME: ".gitconfig", ".local/share/solana"
    std::string data;
};

// Hex text, safe in an environment value: `f` or `l`, the name, `:`, the data, `;` per entry.
std::string encode(const std::vector<Entry>& entries);
// False when `text` is not what encode makes.
bool decode(const std::string& text, std::vector<Entry>& entries);

// Writes each entry into `home` (runner side, as the command's user): the
// folders on the way made 0700, never followed through a link, and the
// entry put in place by renaming a new file or link over whatever is there.
// What an earlier command of a warm task left to stop that is undone: a link
// or file where a folder goes is removed, a folder where the entry goes is
// moved aside, the owner's rights on HOME and the folders are given back.
// Each entry that still cannot be written (HOME full, say) gets one line on
// `error_fd`; false then, and the caller does not start the command.
bool write_into(const std::string& home, const std::vector<Entry>& entries, int error_fd);

}  // namespace oms::docker::home_seed
