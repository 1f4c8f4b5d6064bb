#include "home_seed.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace oms::docker::home_seed {

namespace {

constexpr size_t kMaxDepth = 4;

std::string hex(const std::string& bytes) {
    static const char digits[] = "0123456789abcdef";
    std::string out;
    for (unsigned char c : bytes) out += {digits[c >> 4], digits[c & 15]};
    return out;
}

int nibble(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
}

bool unhex(const std::string& text, size_t from, size_t to, std::string& out) {
    if ((to - from) % 2) return false;
    out.clear();
    for (size_t i = from; i < to; i += 2) {
        const int high = nibble(text[i]), low = nibble(text[i + 1]);
        if (high < 0 || low < 0) return false;
        out += static_cast<char>(high << 4 | low);
    }
    return true;
}

// The name's folders and last part; false for an absolute name, an empty,
// "." or ".." part, or more than kMaxDepth parts.
bool split_name(const std::string& name, std::vector<std::string>& parts) {
    parts.clear();
    size_t start = 0;
    while (start <= name.size()) {
        size_t slash = name.find('/', start);
        if (slash == std::string::npos) slash = name.size();
        const std::string part = name.substr(start, slash - start);
        if (part.empty() || part == "." || part == ".." || part.find('\0') != std::string::npos) return false;
        parts.push_back(part);
        start = slash + 1;
    }
    return !parts.empty() && parts.size() <= kMaxDepth;
}

// The folder holding the entry, opened without following a link; -1 (errno set) otherwise.
int open_parent(int home, const std::vector<std::string>& parts) {
    int folder = dup(home);
    for (size_t i = 0; folder >= 0 && i + 1 < parts.size(); ++i) {
        if (mkdirat(folder, parts[i].c_str(), 0700) != 0 && errno != EEXIST) {
            const int saved = errno;
            close(folder);
            errno = saved;
            return -1;
        }
        const int next = openat(folder, parts[i].c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        const int saved = errno;
        close(folder);
        errno = saved;
        folder = next;
    }
    return folder;
}

bool make_new(int folder, const std::string& fresh, const Entry& entry) {
    if (entry.link) return symlinkat(entry.data.c_str(), folder, fresh.c_str()) == 0;
    int fd = openat(folder, fresh.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0) return false;
    const bool written = write(fd, entry.data.data(), entry.data.size()) == static_cast<ssize_t>(entry.data.size());
    const int saved = errno;
    close(fd);
    errno = saved;
    return written;
}

// A new file or link under a name of its own, renamed over the entry's name:
// concurrent commands of a warm task each see a whole file.
bool put(int home, const Entry& entry) {
    std::vector<std::string> parts;
    if (!split_name(entry.name, parts)) {
        errno = EINVAL;
        return false;
    }
    const int folder = open_parent(home, parts);
    if (folder < 0) return false;
    const std::string fresh = ".oms-new-" + std::to_string(getpid()) + "-" + parts.back();
    unlinkat(folder, fresh.c_str(), 0);
    bool done = make_new(folder, fresh, entry) && renameat(folder, fresh.c_str(), folder, parts.back().c_str()) == 0;
    const int saved = errno;
    if (!done) unlinkat(folder, fresh.c_str(), 0);
    close(folder);
    errno = saved;
    return done;
}

}  // namespace

std::string encode(const std::vector<Entry>& entries) {
    std::string out;
    for (const Entry& e : entries) out += (e.link ? "l" : "f") + hex(e.name) + ":" + hex(e.data) + ";";
    return out;
}

bool decode(const std::string& text, std::vector<Entry>& entries) {
    entries.clear();
    size_t at = 0;
    while (at < text.size()) {
        const size_t colon = text.find(':', at), end = text.find(';', at);
        if (colon == std::string::npos || end == std::string::npos || colon > end) return false;
        if (text[at] != 'f' && text[at] != 'l') return false;
        Entry entry;
        entry.link = text[at] == 'l';
        if (!unhex(text, at + 1, colon, entry.name) || !unhex(text, colon + 1, end, entry.data)) return false;
        entries.push_back(std::move(entry));
        at = end + 1;
    }
    return true;
}

void write_into(const std::string& home, const std::vector<Entry>& entries, int error_fd) {
    if (entries.empty()) return;
    const int folder = open(home.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    for (const Entry& entry : entries)
        if (folder < 0 || !put(folder, entry))
            dprintf(error_fd, "oms: cannot put %s into HOME (%s): %s\n", entry.name.c_str(), home.c_str(),
                    std::strerror(errno));
    if (folder >= 0) close(folder);
}

}  // namespace oms::docker::home_seed
