#include "home_seed.hpp"

#include <fcntl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
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

// An earlier command of a warm task shares HOME with the runner's user: it
// may have taken the owner's rights away from a folder (chmod 500 HOME) so
// that nothing can be put there. The owner gives them back; a link or
// anything but a folder owned by this user is left alone.
bool owner_can_write(int folder) {
    struct stat st;
    if (fstat(folder, &st) != 0) return false;
    if ((st.st_mode & S_IRWXU) == S_IRWXU) return true;
    if (st.st_uid == geteuid() && fchmod(folder, (st.st_mode & 07777) | S_IRWXU) == 0) return true;
    errno = EACCES;
    return false;
}

// A name on the way that is not a folder (a link, a file): what a command
// left there so that the entry could not be put in place. Removed, so a
// folder of our own is made instead; never followed.
bool clear_non_folder(int folder, const char* name) {
    struct stat st;
    if (fstatat(folder, name, &st, AT_SYMLINK_NOFOLLOW) != 0) return errno == ENOENT;
    return S_ISDIR(st.st_mode) || unlinkat(folder, name, 0) == 0;
}

// Opens a folder below `folder` (made 0700 when missing) without following a
// link, with its owner's rights restored; -1 (errno set) otherwise.
int open_folder(int folder, const char* name) {
    if (!clear_non_folder(folder, name)) return -1;
    if (mkdirat(folder, name, 0700) != 0 && errno != EEXIST) return -1;
    // A folder made 000 cannot be opened to be given its rights back:
    // fchmodat on its name (it follows a link, but a folder was just seen
    // there, and only this user, who gains nothing, could swap it meanwhile).
    struct stat st;
    if (fstatat(folder, name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISDIR(st.st_mode)) {
        errno = ENOTDIR;
        return -1;
    }
    if ((st.st_mode & S_IRWXU) != S_IRWXU && st.st_uid == geteuid() &&
        fchmodat(folder, name, (st.st_mode & 07777) | S_IRWXU, 0) != 0)
        return -1;  // errno says why
    return openat(folder, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
}

// The folder holding the entry, opened without following a link; -1 (errno set) otherwise.
int open_parent(int home, const std::vector<std::string>& parts) {
    int folder = dup(home);
    for (size_t i = 0; folder >= 0 && i + 1 < parts.size(); ++i) {
        if (!owner_can_write(folder)) {
            const int saved = errno ? errno : EACCES;
            close(folder);
            errno = saved;
            return -1;
        }
        const int next = open_folder(folder, parts[i].c_str());
        const int saved = errno;
        close(folder);
        errno = saved;
        folder = next;
    }
    if (folder >= 0 && !owner_can_write(folder)) {
        close(folder);
        errno = EACCES;
        return -1;
    }
    return folder;
}

// The new file's name: a command that shares HOME cannot have put anything
// there beforehand (a folder at a name it could guess, such as one with the
// runner's pid, made every seed fail).
std::string unguessable_name(const std::string& last_part) {
    unsigned char bytes[12] = {};
    if (getrandom(bytes, sizeof bytes, 0) != static_cast<ssize_t>(sizeof bytes))
        for (unsigned char& b : bytes) b = static_cast<unsigned char>(std::rand());
    return ".oms-new-" + hex(std::string(reinterpret_cast<char*>(bytes), sizeof bytes)) + "-" + last_part;
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

// A rename cannot replace a folder with a file or link: a folder a command
// made at the entry's name is moved aside first (kept, under a name saying
// why), so the entry still lands there.
bool move_folder_aside(int folder, const std::string& name) {
    struct stat st;
    if (fstatat(folder, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISDIR(st.st_mode)) return false;
    const std::string aside = ".oms-moved-aside" + unguessable_name(name).substr(std::strlen(".oms-new"));
    return renameat(folder, name.c_str(), folder, aside.c_str()) == 0;
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
    std::string fresh;
    bool done = false;
    for (int attempt = 0; attempt < 8 && !done; ++attempt) {
        fresh = unguessable_name(parts.back());
        done = make_new(folder, fresh, entry);
        if (!done && errno != EEXIST) break;
    }
    if (done && renameat(folder, fresh.c_str(), folder, parts.back().c_str()) != 0)
        done = (errno == EISDIR || errno == ENOTEMPTY || errno == EEXIST) && move_folder_aside(folder, parts.back()) &&
               renameat(folder, fresh.c_str(), folder, parts.back().c_str()) == 0;
    const int saved = errno;
    if (!done) unlinkat(folder, fresh.c_str(), 0);
    close(folder);
    errno = saved;
    return done;
}

// HOME itself, its owner's rights restored (a command may have made it 000).
int open_home(const std::string& home) {
    struct stat st;
    if (lstat(home.c_str(), &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == geteuid() &&
        (st.st_mode & S_IRWXU) != S_IRWXU)
        chmod(home.c_str(), (st.st_mode & 07777) | S_IRWXU);
    return open(home.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
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

bool write_into(const std::string& home, const std::vector<Entry>& entries, int error_fd) {
    if (entries.empty()) return true;
    const int folder = open_home(home);
    bool all = folder >= 0;
    for (const Entry& entry : entries)
        if (folder < 0 || !put(folder, entry)) {
            dprintf(error_fd, "oms: cannot put %s into HOME (%s): %s\n", entry.name.c_str(), home.c_str(),
                    std::strerror(errno));
            all = false;
        }
    if (folder >= 0) close(folder);
    return all;
}

}  // namespace oms::docker::home_seed
