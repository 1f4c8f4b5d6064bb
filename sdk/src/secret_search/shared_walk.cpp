#include "shared_walk.hpp"

#include <oms/dirent64.hpp>
#include <oms/openat2.hpp>
#include <oms/path_kind.hpp>
#include "scan_match.hpp"
#include <oms/scoped_fd.hpp>
#include "findings_merge.hpp"
#include "walk_open.hpp"

#include <errno.h>

#include <condition_variable>
#include <memory>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

namespace oms::sdk {

namespace {

constexpr size_t kFoldersBeforeHelper = 48;  // a tree this big gets the second thread

struct PendingFolder {
    std::string relative;  // "" = the root
    int depth = 0;
};

int open_beneath(int root, const std::string& relative) {
    if (relative.empty()) return fcntl(root, F_DUPFD_CLOEXEC, 0);
    return open_resolved(root, relative.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC,
                         RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS);
}

class SharedWalk {
public:
    // `entries_before`: what the walk of the roots before this one looked at.
    SharedWalk(const ScanRequest& request, std::string root, int root_fd, size_t entries_before)
        : match_(request), links_(request.links), stat_matches_(request.stat_matches), root_(std::move(root)),
          root_fd_(root_fd), entry_limit_(request.entry_limit) {
        entries_ = entries_before;
        pending_.push_back({});
    }

    // False when the walk cannot be trusted to be complete (a folder that
    // could not be opened the way it should, an allocation that failed): the
    // caller then walks the plain way. Past the entry limit it stops, with
    // what it found so far and `complete` false.
    bool run(ScanFindings& found, char* buffer) {
        work(buffer);
        if (helper_.joinable()) helper_.join();
        if (!vanished_.empty()) {
            found.vanished = vanished_;
            return true;
        }
        if (failed_) return false;  // even when cut: the plain walk then says what failed
        found.complete = !cut_;
        found.entries_seen = entries_;
        merge_findings(found, std::move(found_));
        return true;
    }

private:
    const ScanMatcher match_;
    const bool links_;
    const bool stat_matches_;
    const std::string root_;
    const int root_fd_;
    std::mutex mutex_;
    std::condition_variable changed_;
    std::vector<PendingFolder> pending_;  // taken from the back: depth first, so the list stays short
    size_t busy_ = 0, folders_read_ = 0, entries_ = 0;
    const size_t entry_limit_;
    ScanFindings found_;
    std::thread helper_;
    bool helper_tried_ = false;
    bool stopped_ = false;    // no folder is taken any more (one of the three below)
    bool failed_ = false;     // a folder could not be read the plain walk's way: the caller walks the plain way
    bool cut_ = false;        // the entry limit stopped them
    std::string vanished_;    // a folder gone when opened: stops both threads, the caller walks again

    // No second thread (say, a process limit): this one does it all.
    void start_helper() {
        helper_tried_ = true;
        try {
            helper_ = std::thread([this] {
                std::unique_ptr<uint64_t[]> own;
                try {
                    own = std::make_unique<uint64_t[]>(kScanBufferSize / sizeof(uint64_t));
                } catch (const std::exception&) {
                    return;  // the first thread carries on alone
                }
                work(reinterpret_cast<char*>(own.get()));
            });
        } catch (const std::exception&) {
        }
    }

    // Takes folders until none is left and nobody can add one, or the walk
    // stops: a folder it could not read the plain walk's way (failed_), one
    // gone (vanished_), or the entry limit passed (cut_: what was read is
    // kept, this folder's findings included).
    void work(char* buffer) {
        std::unique_lock<std::mutex> lock(mutex_);
        for (;;) {
            changed_.wait(lock, [this] { return !pending_.empty() || busy_ == 0 || stopped_; });
            if (pending_.empty() || stopped_) break;
            PendingFolder folder = std::move(pending_.back());
            pending_.pop_back();
            ++busy_;
            lock.unlock();
            std::vector<PendingFolder> subfolders;
            ScanFindings found;
            bool read = false;
            size_t entries = 0;
            try {
                read = read_folder(folder, buffer, subfolders, found, entries);
            } catch (const std::exception&) {
            }
            lock.lock();
            --busy_;
            ++folders_read_;
            if (read && !found.vanished.empty() && vanished_.empty()) vanished_ = found.vanished;
            if (!read || !found.vanished.empty() || !keep(found, subfolders)) {
                if (!read || found.vanished.empty()) failed_ = true;
                stop();
                break;
            }
            entries_ += entries;
            if (entries_ > entry_limit_) {
                cut_ = true;
                stop();
                break;
            }
            if (!helper_tried_ && folders_read_ >= kFoldersBeforeHelper && pending_.size() >= 2) start_helper();
            changed_.notify_all();
        }
        changed_.notify_all();
    }

    // With the lock held. False when memory ran out.
    bool keep(ScanFindings& found, std::vector<PendingFolder>& subfolders) {
        try {
            if (!stopped_)
                for (auto& s : subfolders) pending_.push_back(std::move(s));
            merge_findings(found_, std::move(found));
            return true;
        } catch (const std::exception&) {
            return false;
        }
    }

    // With the lock held: no folder is taken any more.
    void stop() {
        stopped_ = true;
        pending_.clear();
        changed_.notify_all();
    }

    std::string path_of(const PendingFolder& folder) const {
        return folder.relative.empty() ? root_ : root_ + "/" + folder.relative;
    }

    // False when the folder could not be read the way the plain walk would
    // have read it: a path too long for openat2, a link where a
    // folder was, a folder (or entry) it may not read. A folder gone is
    // reported in `found.vanished`, as the plain walk does.
    bool read_folder(const PendingFolder& folder, char* buffer, std::vector<PendingFolder>& subfolders,
                     ScanFindings& found, size_t& entries) const {
        const std::string path = path_of(folder);
        if (match_.skipped(path)) return true;
        int fd = open_beneath(root_fd_, folder.relative);
        if (fd < 0 && (errno == ENOENT || errno == ENOTDIR)) {
            found.vanished = path;
            return true;
        }
        if (fd < 0) return false;
        ScopedFd closer(fd);
        bool complete = true;
        const bool listed = for_each_entry(fd, buffer, kScanBufferSize, [&](const char* name, unsigned char type) {
            ++entries;
            const unsigned char listed_type = type;
            type = entry_type(fd, name, type);
            if (type == DT_UNKNOWN && errno == EACCES) complete = false;  // not searchable
            const std::string child = path + "/" + name;
            if (listed_type == DT_UNKNOWN && type == DT_UNKNOWN && gone_or_not_a_folder(errno)) {
                if (found.vanished.empty()) found.vanished = child;  // no types here: a folder, perhaps, renamed away
                return;
            }
            if (type != DT_UNKNOWN && match_.named(name)) found.named.insert(child);
            if (type == DT_LNK && links_) found.links.insert(child);
            if (type == DT_DIR && match_.matches(child)) {
                note_match(fd, name, child, found);  // hidden whole, not walked
            } else if (type == DT_DIR && folder.depth + 1 > kMaxScanDepth) {
                if (note_match(fd, name, child, found)) found.too_deep.insert(child);  // hidden whole instead
            } else if (type == DT_DIR) {
                subfolders.push_back({folder.relative.empty() ? name : folder.relative + "/" + name, folder.depth + 1});
            } else if (type != DT_UNKNOWN && match_.matches(child)) {
                if (type != DT_LNK || link_leads_somewhere(fd, name)) note_match(fd, name, child, found);
            }
        });
        return listed && complete;
    }

    // As the plain walk's: the match with its lstat when asked; false when
    // it is gone since its listing (the walk then starts again).
    bool note_match(int fd, const char* name, const std::string& child, ScanFindings& found) const {
        if (stat_matches_) {
            struct stat st;
            if (fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
                if (found.vanished.empty()) found.vanished = child;
                return false;
            }
            found.match_stats[child] = st;
        }
        found.secrets.insert(child);
        return true;
    }
};

}  // namespace

bool walk_shared(const ScanRequest& request, const std::string& root, ScanFindings& found, char* buffer) {
    int root_fd = open(root.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (root_fd < 0) return errno == ENOENT || errno == ENOTDIR || errno == ELOOP;  // as the plain walk
    ScopedFd closer(root_fd);
    // One probe tells whether openat2 works here (kernel 5.6+, not refused by
    // a seccomp filter of a container oms itself runs in).
    ScopedFd probe(open_resolved(root_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC, RESOLVE_BENEATH));
    if (probe.get() < 0) return false;
    return SharedWalk(request, root, root_fd, found.entries_seen).run(found, buffer);
}

}  // namespace oms::sdk
