// What a plugin file must be before it is handed to the dynamic loader: a
// regular file, an ELF shared object of this machine's class, byte order and
// architecture, whose headers and segments all lie within the file. The
// loader maps each segment and touches its pages; a page past the end of a
// file cut short (an interrupted copy, a full disk) kills the process with
// SIGBUS, so such a file is refused with the reason instead.
#pragma once
#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

namespace oms::core {

// Reads `size` bytes at `offset` into `out`; false when they are not all there.
using ReadAt = std::function<bool(uint64_t offset, void* out, size_t size)>;

// Why the bytes of a file of `file_size` bytes are not an ELF shared object
// this process can load (nullopt: they are). Reads only through `read_at`.
std::optional<std::string> elf_layout_problem(uint64_t file_size, const ReadAt& read_at);

// What identifies the file that was checked, to see it is still the one loaded.
struct PluginFileIdentity {
    dev_t device = 0;
    ino_t inode = 0;
    off_t size = 0;
    int64_t mtime_ns = 0;
    int64_t ctime_ns = 0;
    bool operator==(const PluginFileIdentity& other) const {
        return device == other.device && inode == other.inode && size == other.size && mtime_ns == other.mtime_ns &&
               ctime_ns == other.ctime_ns;
    }
    bool operator!=(const PluginFileIdentity& other) const { return !(*this == other); }
};

struct PluginFileCheck {
    std::optional<std::string> problem;  // set: do not load the file
    PluginFileIdentity identity;         // of the file checked (when no problem)
};

// Opens `path` without blocking (a FIFO named *.so must not hang oms) and
// checks it as above, and that it did not change while it was checked.
PluginFileCheck check_plugin_file(const std::string& path);

// The identity of what `path` names now (nullopt: it cannot be inspected).
std::optional<PluginFileIdentity> plugin_file_identity(const std::string& path);

}  // namespace oms::core
