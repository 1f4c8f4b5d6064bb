#include <oms/secret_search.hpp>

#include <oms/path.hpp>
#include <oms/sdk.hpp>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstring>
#include <map>
#include <utility>

namespace oms::sdk {

namespace {

constexpr mode_t kOwnerReadSearch = S_IRUSR | S_IXUSR;
constexpr int kFolderFlags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;

bool ends_with(const std::string& s, const std::string& suffix) {
    return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// ASCII letters compared without case: a case-insensitive file system
// (macOS's default) makes `PROG-KEYPAIR.JSON` the file a `cp` to
// `prog-keypair.json` writes.
bool ends_with_folded(const std::string& s, const std::string& suffix) {
    if (s.size() < suffix.size()) return false;
    const size_t start = s.size() - suffix.size();
    for (size_t i = 0; i < suffix.size(); ++i)
        if (std::tolower(static_cast<unsigned char>(s[start + i])) != std::tolower(static_cast<unsigned char>(suffix[i])))
            return false;
    return true;
}

bool gone(int error) { return error == ENOENT || error == ENOTDIR || error == ELOOP; }

[[noreturn]] void unreadable(const std::string& backend, const std::string& path, int error) {
    throw Error(OMS_ERR_FAILED,
                backend + ": the folder " + path + " cannot be read (" + std::strerror(error) +
                    "), so keypair files in it could not be looked for; the command did not run. A command "
                    "may have made it unreadable (it owns what it creates): give it back "
                    "read and search rights (chmod u+rx as its owner, or sudo chown it to you first) or "
                    "delete it, then run again");
}

// Gives a folder of ours its owner's read and search rights back.
void restore_owner_rights(int fd) {
    struct stat st;
    if (fstat(fd, &st) == 0 && st.st_uid == geteuid() && (st.st_mode & kOwnerReadSearch) != kOwnerReadSearch)
        fchmod(fd, (st.st_mode & 07777) | kOwnerReadSearch);
}

// A folder with no read right is opened as a path (no right needed), checked
// to be ours, changed through /proc (fchmod refuses O_PATH) and reopened from
// that descriptor, so a link swapped in meanwhile changes nothing.
int open_after_restoring_rights(int at, const char* name) {
    int handle = openat(at, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (handle < 0) return -1;
    struct stat st;
    int fd = -1;
    if (fstat(handle, &st) == 0 && st.st_uid == geteuid()) {
        const std::string by_descriptor = "/proc/self/fd/" + std::to_string(handle);
        if (chmod(by_descriptor.c_str(), (st.st_mode & 07777) | kOwnerReadSearch) == 0)
            fd = openat(handle, ".", kFolderFlags);
    } else {
        errno = EACCES;
    }
    const int error = errno;
    close(handle);
    errno = error;
    return fd;
}

// Whether the folder at `name` is another user's: opened as a path, no link followed.
bool others(int at, const char* name) {
    struct stat st;
    return fstatat(at, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && st.st_uid != geteuid();
}

// -1 when the entry is gone or no longer a folder, or (`skip_others`) is
// another user's folder we cannot read; throws when it cannot be read.
int open_folder(int at, const char* name, const std::string& path, bool skip_others, const std::string& backend) {
    int fd = openat(at, name, kFolderFlags);
    if (fd >= 0) return fd;
    const int error = errno;
    if (gone(error)) return -1;
    if (error == EACCES || error == EPERM) {
        fd = open_after_restoring_rights(at, name);
        if (fd >= 0) return fd;
        if (gone(errno)) return -1;
        if (skip_others && others(at, name)) return -1;
    }
    unreadable(backend, path, error);
}

// How many walks in a row may meet a folder gone between its listing and
// its opening before the run is refused.
constexpr int kWalkTries = 3;

[[noreturn]] void changed_during_walk(const std::string& backend, const std::string& folder) {
    throw Error(OMS_ERR_FAILED, backend + ": the folder " + folder +
                                    " vanished while it was searched for keypair files, " + std::to_string(kWalkTries) +
                                    " searches in a row; the command did not run. Something is moving folders "
                                    "there: run again once it has stopped");
}

// realpath(3), or "" where it fails.
std::string real_path(const std::string& path) {
    char* resolved = realpath(path.c_str(), nullptr);
    const std::string real = resolved ? resolved : "";
    free(resolved);
    return real;
}

// Whether `real` (a real path) lies in one of `paths`, each resolved.
bool inside_any_real(const std::string& real, const std::vector<std::string>& paths) {
    for (const std::string& path : paths) {
        const std::string real_path_of_it = real_path(path);
        if (!real_path_of_it.empty() && path::is_inside(real, real_path_of_it)) return true;
    }
    return false;
}

class Walker {
public:
    // `stat_every_file`: also the plain files no rule looks for, to learn
    // which of them are other names of a match with several.
    Walker(const SecretSearch& request, bool stat_every_file)
        : request_(request), stat_every_file_(stat_every_file) {}
    SecretFindings result;
    // A folder listed but gone when it was to be opened: renamed, perhaps,
    // to a name its parent's listing had passed, so what it holds was not
    // seen. The walk is not an answer then.
    std::string vanished;

    void walk_root(const std::string& root) {
        if (matches(root)) {
            result.folders.push_back(root);
            return;
        }
        int fd = open_folder(AT_FDCWD, root.c_str(), root, request_.skip_closed_folders_of_others, request_.backend);
        if (fd >= 0) walk(fd, root);
    }

    void visit_file(const std::string& path, const struct stat& st) {
        if (st.st_nlink > 1) names_of_[{st.st_dev, st.st_ino}].push_back(path);
        if (!matches(path)) return;
        result.files.push_back(path);
        result.seen.push_back({path, uint64_t(st.st_dev), uint64_t(st.st_ino)});
        if (st.st_nlink > 1) linked_.push_back({path, st});
    }

    bool found_linked() const { return !linked_.empty(); }

    // The matches with more than one name, each with the other names the walk met.
    void collect_linked() {
        std::sort(linked_.begin(), linked_.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
        for (const auto& [path, st] : linked_) {
            if (!result.linked.empty() && result.linked.back().path == path) continue;
            LinkedSecret linked{path, static_cast<unsigned long>(st.st_nlink), {}};
            for (const std::string& name : names_of_[{st.st_dev, st.st_ino}])
                if (name != path) linked.other_names.push_back(name);
            std::sort(linked.other_names.begin(), linked.other_names.end());
            result.linked.push_back(std::move(linked));
        }
    }

private:
    const SecretSearch& request_;
    const bool stat_every_file_;
    size_t seen_ = 0;
    // Files with more than one name, by device and inode: a match's other names.
    std::map<std::pair<dev_t, ino_t>, std::vector<std::string>> names_of_;
    std::vector<std::pair<std::string, struct stat>> linked_;  // matches with more than one name, as the walk saw them

    bool matches(const std::string& path) const {
        for (const std::string& suffix : request_.suffixes)
            if (request_.fold_case ? ends_with_folded(path, suffix) : ends_with(path, suffix)) return true;
        return false;
    }

    void note_vanished(const std::string& path) {
        if (vanished.empty()) vanished = path;
    }

    bool wanted_name(const char* name) const {
        return std::find(request_.names.begin(), request_.names.end(), name) != request_.names.end();
    }

    // Takes ownership of `fd`.
    void walk(int fd, const std::string& dir) {
        DIR* handle = fdopendir(fd);
        if (!handle) {
            const int error = errno;
            close(fd);
            unreadable(request_.backend, dir, error);
        }
        try {
            read_entries(handle, dir);
        } catch (...) {
            closedir(handle);
            throw;
        }
        closedir(handle);
    }

    void read_entries(DIR* handle, const std::string& dir) {
        for (;;) {
            errno = 0;
            dirent* entry = readdir(handle);
            if (!entry) {
                if (errno != 0) unreadable(request_.backend, dir, errno);
                return;
            }
            const char* name = entry->d_name;
            if (!std::strcmp(name, ".") || !std::strcmp(name, "..")) continue;
            if (++seen_ > request_.entry_limit) {
                result.complete = false;
                return;
            }
            visit(dirfd(handle), name, entry->d_type, (dir == "/" ? "" : dir) + "/" + name, dir);
            if (!result.complete) return;
        }
    }

    void visit(int dir_fd, const char* name, unsigned char listed_type, const std::string& path,
               const std::string& dir) {
        // A plain file whose name no rule looks for needs no stat: the
        // listing says what it is (most of a tree; a stat each doubled the
        // walk's time). Its link count only names a linked match's other
        // names, which a second walk collects when there is such a match.
        if (listed_type == DT_REG && !stat_every_file_ && !wanted_name(name) && !matches(path)) return;
        struct stat st;
        if (fstatat(dir_fd, name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
            if (errno == EACCES) restore_owner_rights(dir_fd);  // listable, not searchable
            if (fstatat(dir_fd, name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
                if (!gone(errno)) unreadable(request_.backend, dir, errno);
                if (listed_type == DT_DIR || listed_type == DT_UNKNOWN) note_vanished(path);
                return;
            }
        }
        if ((S_ISDIR(st.st_mode) || S_ISREG(st.st_mode)) && wanted_name(name)) result.named.push_back(path);
        // Masked whole already (a READ_DENY): a folder is not entered, a file
        // not matched again (a second mask on one path stops a container runtime).
        const bool masked = std::find(request_.skip.begin(), request_.skip.end(), path) != request_.skip.end();
        if (S_ISDIR(st.st_mode)) {
            if (masked) return;
            if (matches(path)) {  // masked whole: whatever was copied into it stays hidden
                result.folders.push_back(path);
                return;
            }
            int child = open_folder(dir_fd, name, path, request_.skip_closed_folders_of_others, request_.backend);
            if (child >= 0)
                walk(child, path);
            else if (gone(errno))
                note_vanished(path);
        } else if (S_ISREG(st.st_mode) && !masked) {
            visit_file(path, st);
        } else if (S_ISLNK(st.st_mode)) {
            if (request_.collect_links) result.links.push_back(path);
            if (matches(path)) visit_keypair_link(path);
        }
    }

    // Followed on the host, as `cp` would follow it. A link that leads
    // nowhere yet hides nothing and is judged again at the next run, once a
    // tool has written through it. One that leads out of the roots shows
    // nothing where only the roots are seen (a container's mounts); where
    // the host outside them is readable, what a `cp` wrote there through it
    // is read there, whatever its name, so it is refused too.
    void visit_keypair_link(const std::string& path) {
        struct stat target;
        if (stat(path.c_str(), &target) != 0) return;
        const std::string real = real_path(path);
        if (!real.empty() && !inside_any_real(real, request_.roots)) {
            if (request_.host_readable_outside)
                result.keypair_links.push_back(path + " (a link out of the folders searched, to " + real + ")");
            return;
        }
        if (S_ISDIR(target.st_mode))
            result.keypair_links.push_back(path + " (a link to the folder " + real + ")");
        else if (real.empty() || !matches(real))
            result.keypair_links.push_back(path + " (a link to " + real + ", a name no keypair rule hides)");
    }
};

void sort_unique(std::vector<std::string>& paths) {
    std::sort(paths.begin(), paths.end());
    paths.erase(std::unique(paths.begin(), paths.end()), paths.end());
}

}  // namespace

namespace {

SecretFindings walk_once(const SecretSearch& request, std::string& vanished, bool stat_every_file = false) {
    Walker walker(request, stat_every_file);
    for (const std::string& root : request.roots) {
        struct stat st;
        if (lstat(root.c_str(), &st) != 0) continue;
        if (S_ISDIR(st.st_mode))
            walker.walk_root(root);
        else if (S_ISREG(st.st_mode))
            walker.visit_file(root, st);
        if (!walker.result.complete || !walker.vanished.empty()) break;
    }
    vanished = walker.vanished;
    if (vanished.empty() && walker.found_linked() && !stat_every_file)
        return walk_once(request, vanished, true);  // the other names too: the refusal names them
    if (vanished.empty()) walker.collect_linked();
    return std::move(walker.result);
}

SecretFindings walk_until_still(const SecretSearch& request) {
    for (int attempt = 1;; ++attempt) {
        std::string vanished;
        SecretFindings result = walk_once(request, vanished);
        if (vanished.empty()) return result;
        if (attempt == kWalkTries) changed_during_walk(request.backend, vanished);
    }
}

// The folders outside the roots (and outside `hidden`) that links met below
// `follow_links_from` lead to.
std::vector<std::string> folders_links_lead_to(const std::vector<std::string>& links, const SecretSearch& request) {
    const std::vector<std::string>& roots = request.roots;
    const std::vector<std::string>& hidden = request.hidden;
    std::vector<std::string> folders;
    for (const std::string& link : links) {
        if (!path::is_inside_any(link, request.follow_links_from)) continue;
        const std::string real = real_path(link);
        struct stat st;
        if (real.empty() || stat(real.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) continue;
        if (inside_any_real(real, roots) || inside_any_real(real, hidden) || inside_any_real(real, folders)) continue;
        folders.push_back(real);
    }
    return folders;
}

// How many times the folders links lead to are added as roots: a link in
// one of them leads further.
constexpr int kLinkRounds = 3;

}  // namespace

SecretFindings find_secrets(const SecretSearch& request) {
    if (request.suffixes.empty() && request.names.empty() && !request.collect_links) return SecretFindings{};
    SecretSearch walking = request;
    // A folder a planted link leads out to is where a `cp` through the link
    // lands: searched as a root, and its own links followed in turn.
    const bool following = !request.follow_links_from.empty();
    if (following) walking.collect_links = true;
    SecretFindings result;
    for (int round = 0;; ++round) {
        result = walk_until_still(walking);
        if (!following || !result.complete) break;
        const auto more = folders_links_lead_to(result.links, walking);
        if (more.empty()) break;
        if (round == kLinkRounds) {
            result.complete = false;  // links lead further than the search goes
            break;
        }
        walking.roots.insert(walking.roots.end(), more.begin(), more.end());
        walking.follow_links_from.insert(walking.follow_links_from.end(), more.begin(), more.end());
    }
    if (!request.collect_links) result.links.clear();
    sort_unique(result.files);
    sort_unique(result.folders);
    sort_unique(result.named);
    sort_unique(result.keypair_links);
    sort_unique(result.links);
    return result;
}

// A key copied into such a file or onto such a link is read under a name
// no mask covers: nothing runs while one exists.
void refuse_unhideable(const SecretFindings& found, const std::string& backend) {
    if (!found.linked.empty()) {
        std::string names;
        for (const LinkedSecret& m : found.linked) {
            names += (names.empty() ? "" : "; ") + m.path + " (" + std::to_string(m.names) + " names";
            for (const std::string& other : m.other_names) names += ", also " + other;
            names += ")";
        }
        throw Error(OMS_ERR_FAILED, backend +
                                        ": secret files with more than one name (hard links), readable "
                                        "through the others: " +
                                        names +
                                        "; the command did not run. Remove "
                                        "the other names, or give the file a name of its own (cp it to a new "
                                        "file, then mv that over it)");
    }
    if (!found.keypair_links.empty()) {
        std::string list;
        for (const std::string& link : found.keypair_links) list += (list.empty() ? "" : "; ") + link;
        throw Error(OMS_ERR_FAILED, backend +
                                        ": keypair names that are links, whose keys would be read through "
                                        "the place they lead to: " +
                                        list +
                                        "; the command did not run. Put "
                                        "the key itself at the keypair's name (what was written through a "
                                        "link lies in its target) and remove the link");
    }
}

}  // namespace oms::sdk
