#include "oms/core/known_backends.hpp"

#include "oms/core/paths.hpp"
#include "oms/core/version.hpp"

#include <oms/text_file.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <sstream>

namespace oms::core {

namespace {

// The first line; a record written by another build is not read, since
// that build may have accepted a plugin this one refuses.
std::string header() { return "oms-known-backends 1 " + version_text(); }

bool one_word(const std::string& text) { return !text.empty() && text.find_first_of(" \t\n") == std::string::npos; }

// An entry whose fields would not read back whole is not written: that
// backend is then loaded at every command, as without a record.
bool writable(const KnownBackend& backend) {
    return one_word(backend.id) && one_word(backend.platforms) && !backend.file.empty() &&
           backend.file.find('\n') == std::string::npos;
}

std::optional<KnownBackend> parse_entry(const std::string& line) {
    std::istringstream in(line);
    KnownBackend backend;
    unsigned long long device = 0, inode = 0;
    long long size = 0;
    in >> device >> inode >> size >> backend.identity.mtime_ns >> backend.identity.ctime_ns >> backend.strength >>
        backend.id >> backend.platforms;
    if (!in || in.get() != ' ') return std::nullopt;
    std::getline(in, backend.file);
    if (backend.file.empty() || backend.file[0] != '/') return std::nullopt;
    backend.identity.device = static_cast<dev_t>(device);
    backend.identity.inode = static_cast<ino_t>(inode);
    backend.identity.size = static_cast<off_t>(size);
    return backend;
}

// The record's text when it is a regular file of this user's that nobody
// else may write, reached with no link at its name; nullopt otherwise.
std::optional<std::string> own_record_text(const std::string& path) {
    const int fd = sdk::open_regular_file(path, O_NOFOLLOW);
    if (fd < 0) return std::nullopt;
    struct stat st;
    std::optional<std::string> text;
    if (::fstat(fd, &st) == 0 && st.st_uid == ::geteuid() && (st.st_mode & 022) == 0)
        text = sdk::read_text_fd(fd, 64 * 1024);
    ::close(fd);
    return text;
}

}  // namespace

KnownBackends KnownBackends::read(const std::string& path) {
    KnownBackends known;
    const auto text = own_record_text(path);
    if (!text) return known;
    std::istringstream lines(*text);
    std::string line;
    if (!std::getline(lines, line) || line != header()) return known;
    while (std::getline(lines, line)) {
        auto entry = parse_entry(line);
        if (!entry) return KnownBackends{};  // one bad line: the whole record is untrusted
        known.entries_.push_back(std::move(*entry));
    }
    return known;
}

void KnownBackends::add(KnownBackend backend) {
    if (writable(backend)) entries_.push_back(std::move(backend));
}

bool KnownBackends::write(const std::string& path) const {
    std::string text = header() + "\n";
    for (const auto& backend : entries_) {
        text += std::to_string(backend.identity.device) + " " + std::to_string(backend.identity.inode) + " " +
                std::to_string(backend.identity.size) + " " + std::to_string(backend.identity.mtime_ns) + " " +
                std::to_string(backend.identity.ctime_ns) + " " + std::to_string(backend.strength) + " " +
                backend.id + " " + backend.platforms + " " + backend.file + "\n";
    }
    // The state folder is made 0700 when missing (its parents as usual); a
    // folder that cannot be made fails the write below.
    const std::filesystem::path folder = std::filesystem::path(path).parent_path();
    std::error_code error;
    std::filesystem::create_directories(folder.parent_path(), error);
    ::mkdir(folder.c_str(), 0700);
    std::string temporary = path + ".XXXXXX";
    const int fd = ::mkstemp(temporary.data());
    if (fd < 0) return false;
    const bool written = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
    ::close(fd);
    if (!written || ::rename(temporary.c_str(), path.c_str()) != 0) {
        ::unlink(temporary.c_str());
        return false;
    }
    return true;
}

const KnownBackend* KnownBackends::find(const std::string& file, const PluginFileIdentity& identity) const {
    for (const auto& backend : entries_)
        if (backend.file == file && backend.identity == identity) return &backend;
    return nullptr;
}

std::string known_backends_path() { return state_dir() + "/known-backends"; }

}  // namespace oms::core
