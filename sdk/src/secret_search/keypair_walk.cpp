#include <oms/keypair_walk.hpp>
#include <oms/dirent64.hpp>

#include <oms/path_kind.hpp>
#include "scan_match.hpp"
#include <oms/scoped_fd.hpp>
#include "shared_walk.hpp"
#include "walk_open.hpp"

#include <oms/sdk.hpp>

#include <dirent.h>
#include <errno.h>
#include <sys/syscall.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <memory>
#include <set>
#include <utility>
#include <vector>

namespace oms::sdk {

namespace {

// Walks with openat() relative to the parent's descriptor and raw getdents64
// into one reused buffer: no path resolution per folder, no allocation per
// entry except for the path kept in `path_` (appended and cut back).
class Walker {
public:
    Walker(const ScanRequest& request, ScanFindings& found, char* buffer)
        : request_(request), match_(request), links_(request.links), found_(found), buffer_(buffer) {}

    void walk_root(const std::string& root) {
        int fd = open_walk_folder(AT_FDCWD, root.c_str(), root, request_);
        if (fd < 0) return;  // gone, or no longer a folder: nothing below it to hide
        path_ = root;
        walk(fd, 0);
    }

private:
    const ScanRequest& request_;
    const ScanMatcher match_;
    const bool links_;
    ScanFindings& found_;
    std::string path_;
    char* buffer_;  // kScanBufferSize bytes, 8-aligned

    // Takes ownership of `dir_fd` (closed on every way out, a throw included).
    void walk(int dir_fd, int depth) {
        ScopedFd closer(dir_fd);
        if (match_.skipped(path_)) return;
        std::vector<std::pair<std::string, unsigned char>> entries;
        if (!for_each_entry(dir_fd, buffer_, kScanBufferSize,
                            [&](const char* name, unsigned char type) { entries.emplace_back(name, type); }))
            unreadable_folder(request_.backend, path_, errno);
        if (!ask_types(dir_fd, entries)) return;
        for (auto& [name, type] : entries) {
            if (++found_.entries_seen > request_.entry_limit) found_.complete = false;
            if (!found_.complete) return;
            visit(dir_fd, name, type, depth);
        }
    }

    // Where the listing gave no types (a file system without them), each is
    // asked with one fstatat at once, before any subfolder is walked, so the
    // moment between the listing and the question stays short. An entry gone
    // by then may have been a folder renamed to a name the listing had
    // passed: false, and the walk starts again.
    bool ask_types(int dir_fd, std::vector<std::pair<std::string, unsigned char>>& entries) {
        for (auto& [name, type] : entries) {
            if (type != DT_UNKNOWN) continue;
            type = entry_type(dir_fd, name.c_str(), DT_UNKNOWN);
            if (type == DT_UNKNOWN && errno == EACCES && restore_owner_rights(dir_fd))
                type = entry_type(dir_fd, name.c_str(), DT_UNKNOWN);  // listable but not searchable: ours, fixed
            if (type == DT_UNKNOWN && gone_or_not_a_folder(errno)) {
                if (found_.vanished.empty()) found_.vanished = path_ + "/" + name;
                return false;
            }
        }
        return true;
    }

    // `type`: as the listing or ask_types gave it (DT_UNKNOWN: not known,
    // nothing is done with it).
    void visit(int dir_fd, const std::string& name, unsigned char type, int depth) {
        const size_t length = path_.size();
        path_ += '/';
        path_ += name;
        if (type != DT_UNKNOWN && match_.named(name.c_str())) found_.named.insert(path_);
        if (type == DT_LNK && links_) found_.links.insert(path_);
        if (type == DT_DIR && match_.matches(path_)) {
            note_match(dir_fd, name);  // hidden whole: nothing in it is looked at
        } else if (type == DT_DIR && depth + 1 > kMaxScanDepth) {
            if (note_match(dir_fd, name)) found_.too_deep.insert(path_);  // too deep to walk: hidden whole
        } else if (type == DT_DIR) {
            int child = open_child(dir_fd, name);
            if (child >= 0) walk(child, depth + 1);
            else if (errno != EACCES && found_.vanished.empty()) found_.vanished = path_;  // EACCES: another user's
        } else if (type != DT_UNKNOWN && match_.matches(path_)) {
            if (type != DT_LNK || link_leads_somewhere(dir_fd, name.c_str())) note_match(dir_fd, name);
        }
        if (type == DT_REG && !request_.names_of.empty()) note_other_name(dir_fd, name);
        path_.resize(length);
    }

    // A folder listed but not searchable (mode 0400) cannot open its children:
    // when it is ours it gets its search right back first.
    int open_child(int dir_fd, const std::string& name) {
        int child = openat(dir_fd, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (child >= 0) return child;
        if (errno == EACCES) restore_owner_rights(dir_fd);
        child = open_walk_folder(dir_fd, name.c_str(), path_, request_);
        if (child < 0 && errno == ENAMETOOLONG) unreadable_folder(request_.backend, path_, errno);
        return child;
    }

    // A match at path_, with its lstat when asked. False when it is gone
    // since it was listed: moved, perhaps, to a name the listing had passed,
    // so the walk starts again.
    bool note_match(int dir_fd, const std::string& name) {
        if (request_.stat_matches) {
            struct stat st;
            if (fstatat(dir_fd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
                if (found_.vanished.empty()) found_.vanished = path_;
                return false;
            }
            found_.match_stats[path_] = st;
        }
        found_.secrets.insert(path_);
        return true;
    }

    // A plain file that is one of the files whose names are wanted.
    void note_other_name(int dir_fd, const std::string& name) {
        struct stat st;
        if (fstatat(dir_fd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0 || st.st_nlink < 2) return;
        const std::pair<uint64_t, uint64_t> id{uint64_t(st.st_dev), uint64_t(st.st_ino)};
        if (request_.names_of.count(id)) found_.names_of[id].push_back(path_);
    }
};

}  // namespace

void changed_during_walk(const std::string& backend, const std::string& path) {
    throw Error(OMS_ERR_FAILED, speaker(backend) + ": " + path +
                                              " vanished while it was searched for keypair files, " +
                                              std::to_string(kWalkTries) +
                                              " searches in a row; the command did not run. Something is moving "
                                              "folders or files there: run again once it has stopped");
}

namespace {

ScanFindings scan_once(const ScanRequest& request) {
    ScanFindings found;
    // One buffer for every folder of every root (heap: not on the caller's
    // stack; once: allocating it per root made the heap grow and shrink).
    auto buffer = std::make_unique<uint64_t[]>(kScanBufferSize / sizeof(uint64_t));
    char* bytes = reinterpret_cast<char*>(buffer.get());
    Walker walker(request, found, bytes);
    for (const auto& root : request.roots) {
        if (kind_of(root) == Kind::folder) {
            // Other names are looked for on one thread (a stat per file).
            if (!request.names_of.empty() || !walk_shared(request, root, found, bytes)) walker.walk_root(root);
        } else if (kind_of(root) == Kind::file && ScanMatcher(request).matches(root)) {
            struct stat st;
            if (!request.stat_matches) found.secrets.insert(root);
            else if (lstat(root.c_str(), &st) == 0) found.secrets.insert(root), found.match_stats[root] = st;
        }
        if (!found.vanished.empty() || !found.complete) break;
    }
    return found;
}

}  // namespace

ScanFindings scan_tree(const ScanRequest& request) {
    if (request.suffixes.empty() && request.names.empty() && !request.links && request.names_of.empty()) return {};
    for (int attempt = 1;; ++attempt) {
        ScanFindings found = scan_once(request);
        if (found.vanished.empty()) return found;
        if (attempt == kWalkTries) changed_during_walk(request.backend, found.vanished);
    }
}

std::vector<std::string> find_secret_files(const ScanRequest& request, std::set<std::string>* too_deep) {
    if (request.suffixes.empty()) return {};
    ScanRequest secrets_only = request;
    secrets_only.names.clear();
    secrets_only.links = false;
    ScanFindings found = scan_tree(secrets_only);
    if (too_deep) too_deep->insert(found.too_deep.begin(), found.too_deep.end());
    return std::vector<std::string>(found.secrets.begin(), found.secrets.end());
}

}  // namespace oms::sdk
