// What oms remembers of the backend plugin files it loaded, so that a
// command that needs one backend loads that one only. `auto` ranks every
// backend by the strength its descriptor declares; with this record it can
// rank them without loading them, and loads only those it probes (the first
// that can run, usually). Loading a backend plugin costs its dynamic loading,
// its C++ runtime's start and its create(), about 0.1 ms each, and the
// process's later fork and exit pay for its pages.
//
// An entry counts only while the file has the same device, inode, size,
// modification and change time as when it was loaded: a rebuilt, replaced,
// copied or chmod'ed plugin is loaded again. The record lives in oms's state
// folder, which no sandboxed command can see (policy: hide_state_folder),
// and is believed only when it is the user's own (see read).
#pragma once
#include "oms/core/plugin_file_check.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace oms::core {

struct KnownBackend {
    std::string file;  // as the registry named it
    PluginFileIdentity identity;
    std::string id;
    uint32_t strength = 0;
    std::string platforms;  // as its descriptor declares them
    bool operator==(const KnownBackend& other) const {
        return file == other.file && identity == other.identity && id == other.id && strength == other.strength &&
               platforms == other.platforms;
    }
};

class KnownBackends {
public:
    // The record at `path`; empty when it is missing, unreadable, malformed,
    // written by an oms of another version or plugin ABI, or not a regular
    // file of this user's that only this user may write (a link at its name
    // is not followed).
    static KnownBackends read(const std::string& path);
    // Replaces the record at `path` (a new file renamed over it), making its
    // folder when missing; false when it could not.
    bool write(const std::string& path) const;

    // The entry of `file` when its identity is still `identity`.
    const KnownBackend* find(const std::string& file, const PluginFileIdentity& identity) const;
    // An entry whose fields would not read back whole (a space in its
    // platforms, a newline in its file name) is not added: that backend is
    // loaded at every command, as without a record.
    void add(KnownBackend backend);
    const std::vector<KnownBackend>& entries() const { return entries_; }
    bool operator==(const KnownBackends& other) const { return entries_ == other.entries_; }
    bool operator!=(const KnownBackends& other) const { return !(*this == other); }

private:
    std::vector<KnownBackend> entries_;
};

// $XDG_STATE_HOME/oms/known-backends
std::string known_backends_path();

}  // namespace oms::core
