// A record, in oms's state folder, of the notices already given: a user is
// told about a file once, not at every run of every command (a project with
// a node_modules full of locales/id.json would otherwise repeat the same
// lines before each command). One empty file per notice under
// <state_dir>/told/, named by the notice's topic and a hash of its key.
// Header-only; no library beyond POSIX.
#pragma once
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <string>

namespace oms::sdk {

namespace told_once_detail {

// FNV-1a: stable across builds and machines, enough to tell notices apart.
inline std::string hash_of(const std::string& key) {
    uint64_t hash = 1469598103934665603ull;
    for (unsigned char c : key) hash = (hash ^ c) * 1099511628211ull;
    char text[17];
    std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(hash));
    return text;
}

// The record folder, opened without following a link; -1 when there is none
// and `create` is false, or it cannot be made.
inline int record_folder(const std::string& state_dir, bool create) {
    if (state_dir.empty() || state_dir[0] != '/') return -1;
    const std::string folder = state_dir + "/told";
    if (create) {
        ::mkdir(state_dir.c_str(), 0700);
        ::mkdir(folder.c_str(), 0700);
    }
    return ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
}

inline std::string record_name(const std::string& topic, const std::string& key) { return topic + "-" + hash_of(key); }

}  // namespace told_once_detail

// True when the notice `topic`/`key` was already given (its record exists).
inline bool already_told(const std::string& state_dir, const std::string& topic, const std::string& key) {
    const int folder = told_once_detail::record_folder(state_dir, false);
    if (folder < 0) return false;
    struct stat st;
    const bool told =
        ::fstatat(folder, told_once_detail::record_name(topic, key).c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0;
    ::close(folder);
    return told;
}

// Records the notice and says whether this was the first time: true once
// (O_EXCL, so also when two runs ask at the same moment). When no record can
// be kept (no state folder, a read-only one) it says true every time: a
// notice given twice is better than one never given.
inline bool first_time_told(const std::string& state_dir, const std::string& topic, const std::string& key) {
    const int folder = told_once_detail::record_folder(state_dir, true);
    if (folder < 0) return true;
    const int fd = ::openat(folder, told_once_detail::record_name(topic, key).c_str(),
                            O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    const bool first = fd >= 0 || errno != EEXIST;
    if (fd >= 0) ::close(fd);
    ::close(folder);
    return first;
}

}  // namespace oms::sdk
