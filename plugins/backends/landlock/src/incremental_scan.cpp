#include "incremental_scan.hpp"
#include "dirent64.hpp"

#include "path_utils.hpp"
#include "scan_match.hpp"
#include "scan_cache.hpp"
#include "scoped_fd.hpp"
#include "walk_open.hpp"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <memory>
#include <set>
#include <tuple>

namespace oms::landlock {

namespace {

int64_t ns_of(const struct timespec& t) { return int64_t(t.tv_sec) * 1'000'000'000 + t.tv_nsec; }

FolderStamp stamp_of(const struct stat& st) {
    return FolderStamp{uint64_t(st.st_dev), uint64_t(st.st_ino), ns_of(st.st_mtim), ns_of(st.st_ctim)};
}

int64_t now_ns() {
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    return ns_of(t);
}

std::string join(const std::string& folder, const std::string& name) {
    return folder.empty() ? name : folder + "/" + name;
}

// One root: reuses what the old cache says about unchanged folders, reads
// the others, and builds the cache for the next start as it goes.
class IncrementalWalker {
public:
    IncrementalWalker(const ScanRequest& request, ScanStats& stats, int64_t window_ns)
        : request_(request), match_(request), stats_(stats), window_ns_(window_ns) {}

    // Returns the fresh cache and whether it differs from `old`.
    std::pair<ScanCache, bool> walk(const std::string& root, std::optional<ScanCache> old,
                                    std::set<std::string>& found) {
        fresh_ = ScanCache{root, request_.suffixes, {}};
        incomplete_ = false;
        vanished_.clear();
        root_ = root;
        found_ = &found;
        root_fd_ = open_walk_folder(AT_FDCWD, root.c_str(), root);
        if (root_fd_ < 0) return {std::move(fresh_), false};  // gone: nothing to record
        ScopedFd root_closer(root_fd_);  // closed on a throw too
        struct stat st;
        if (old && (fstat(root_fd_, &st) != 0 || !same_object(old->folders, st))) old.reset();  // replaced root
        if (old) ++stats_.caches_loaded;
        const size_t old_size = old ? old->folders.size() : 0;
        old_ = old ? &old->folders : nullptr;
        if (old) fresh_.folders.reserve(old->folders.size());
        changed_ = !old;
        visit("", 0);
        if (old && old_size != fresh_.folders.size()) changed_ = true;
        return {std::move(fresh_), changed_};
    }

private:
    using Folders = std::unordered_map<std::string, FolderRecord>;

    const ScanRequest& request_;
    const ScanMatcher match_;
    ScanStats& stats_;
    int64_t window_ns_;
    std::string root_;
    int root_fd_ = -1;
    Folders* old_ = nullptr;
    ScanCache fresh_;
    std::set<std::string>* found_ = nullptr;
    bool changed_ = false;
    bool incomplete_ = false;  // some folder could not be read by its path from the root
    std::string vanished_;     // a folder listed (or cached) but gone when opened

public:
    // True when the last walk had to leave a folder out for a reason other
    // than it being gone or unreadable: its result cannot stand alone.
    bool incomplete() const { return incomplete_; }
    // A folder below the root that its parent listed but that was gone when
    // opened: the walk must start again (secret_scan.hpp, kWalkTries).
    const std::string& vanished() const { return vanished_; }

private:
    alignas(8) char buffer_[64 * 1024];


    static bool same_object(const Folders& folders, const struct stat& st) {
        auto it = folders.find("");
        return it != folders.end() && it->second.stamp.device == uint64_t(st.st_dev) &&
               it->second.stamp.inode == uint64_t(st.st_ino);
    }

    std::string full_path(const std::string& relative) const {
        return relative.empty() ? root_ : root_ + "/" + relative;
    }

    void visit(const std::string& relative, int depth) {
        if (match_.skipped(full_path(relative))) return;
        FolderRecord record;
        if (!reuse(relative, record) && !read(relative, record)) {  // gone (or too long: incomplete_)
            if (!relative.empty() && !incomplete_ && vanished_.empty()) vanished_ = full_path(relative);
            return;
        }
        emit(relative, record);
        for (const auto& name : record.subfolders) {
            if (depth + 1 > kMaxScanDepth) hide_too_deep(full_path(join(relative, name)));
            else visit(join(relative, name), depth + 1);
        }
        fresh_.folders.emplace(relative, std::move(record));
    }

    // One stat: the same folder object with the same times holds the same entries.
    bool reuse(const std::string& relative, FolderRecord& record) {
        if (!old_) return false;
        auto it = old_->find(relative);
        if (it == old_->end() || !it->second.trusted) return false;
        struct stat st;
        const char* at = relative.empty() ? "." : relative.c_str();
        if (fstatat(root_fd_, at, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISDIR(st.st_mode)) return false;
        if (!(stamp_of(st) == it->second.stamp)) return false;
        record = std::move(it->second);  // each folder is visited once
        ++stats_.folders_reused;
        return true;
    }

    // A folder that cannot be read fails the run (open_walk_folder): a
    // command could otherwise hide a keypair behind a chmod 000.
    bool read(const std::string& relative, FolderRecord& record) {
        changed_ = true;
        const char* at = relative.empty() ? "." : relative.c_str();
        int fd = open_walk_folder(root_fd_, at, full_path(relative));
        if (fd < 0) {
            if (errno == ENAMETOOLONG) incomplete_ = true;  // a path this walk cannot name
            return false;
        }
        const int64_t read_at = now_ns();  // before the stat: a change after it is newer than this
        struct stat st;
        if (fstat(fd, &st) != 0) {
            close(fd);
            return false;
        }
        // Listable but not searchable (mode 0400): its subfolders could not be
        // opened. Ours: searchable again, with the stamp of after the change.
        // Root passes over modes, so nothing is changed for it.
        if (st.st_uid == geteuid() && (st.st_mode & (S_IRUSR | S_IXUSR)) != (S_IRUSR | S_IXUSR) &&
            faccessat(fd, ".", R_OK | X_OK, AT_EACCESS) != 0 && restore_owner_rights(fd) && fstat(fd, &st) != 0) {
            close(fd);
            unreadable_folder(full_path(relative), errno);
        }
        record.stamp = stamp_of(st);
        record.trusted = std::max(record.stamp.mtime_ns, record.stamp.ctime_ns) < read_at - window_ns_;
        const bool listed = list(fd, full_path(relative), record);
        const int error = errno;
        close(fd);
        if (!listed) unreadable_folder(full_path(relative), error);
        ++stats_.folders_read;
        return true;
    }

    bool list(int fd, const std::string& folder, FolderRecord& record) {
        return for_each_entry(fd, buffer_, sizeof buffer_,
                              [&](const char* name, unsigned char type) { classify(fd, folder, name, type, record); });
    }

    void classify(int fd, const std::string& folder, const char* name, unsigned char type, FolderRecord& record) {
        type = entry_type(fd, name, type);
        const bool matches = type != DT_UNKNOWN && match_.matches(folder + "/" + name);
        if (type == DT_DIR && !matches) record.subfolders.emplace_back(name);
        else if (matches) record.matches.push_back(NameMatch{name, type == DT_LNK});  // a folder: hidden whole
    }

    // Not walked: hidden whole, like a folder with a keypair's name.
    void hide_too_deep(const std::string& path) {
        found_->insert(path);
        stats_.too_deep.push_back(path);
    }

    // A symlink counts when it points at something now, as in the full walk.
    void emit(const std::string& relative, const FolderRecord& record) {
        for (const auto& match : record.matches) {
            std::string path = full_path(relative) + "/" + match.name;
            if (!match.symlink || kind_of(path) != Kind::missing) found_->insert(std::move(path));
        }
    }
};

}  // namespace

std::vector<std::string> find_secret_files_cached(const ScanRequest& request, const std::string& cache_dir,
                                                  ScanStats* stats, int64_t untrusted_window_ns) {
    ScanStats local;
    ScanStats& counts = stats ? *stats : local;
    if (request.suffixes.empty()) return {};
    std::set<std::string> found;
    auto walker = std::make_unique<IncrementalWalker>(request, counts, untrusted_window_ns);  // 64 KiB buffer
    for (const auto& root : request.roots) {
        Kind kind = kind_of(root);
        if (kind == Kind::file) {
            for (const auto& path : find_secret_files(ScanRequest{{root}, request.suffixes, request.skip, {}}))
                found.insert(path);
            continue;
        }
        if (kind != Kind::folder) continue;
        const std::string file = cache_file_for(cache_dir, root);
        std::set<std::string> in_root;
        auto [fresh, changed] = walker->walk(root, load_scan_cache(file, root, request.suffixes), in_root);
        for (int attempt = 2; !walker->vanished().empty(); ++attempt) {  // no cache from a walk that missed a folder
            if (attempt > kWalkTries) changed_during_walk(walker->vanished());
            in_root.clear();
            std::tie(fresh, changed) = walker->walk(root, std::nullopt, in_root);
        }
        found.insert(in_root.begin(), in_root.end());
        if (walker->incomplete()) {  // paths too long to name from the root: the plain walk goes folder by folder
            std::set<std::string> deep;
            for (const auto& path : find_secret_files(ScanRequest{{root}, request.suffixes, request.skip, {}}, &deep))
                found.insert(path);
            counts.too_deep.insert(counts.too_deep.end(), deep.begin(), deep.end());
            continue;  // and no cache that would skip those folders next time
        }
        if (changed && save_scan_cache(file, fresh)) ++counts.caches_written;
    }
    return std::vector<std::string>(found.begin(), found.end());
}

}  // namespace oms::landlock
