#include <oms/keypair_walk_cached.hpp>
#include <oms/dirent64.hpp>
#include <oms/file_system_trust.hpp>

#include <oms/scan_keeper.hpp>
#include <oms/path_kind.hpp>
#include "scan_match.hpp"
#include <oms/scan_cache.hpp>
#include "sibling_stats.hpp"
#include <oms/scoped_fd.hpp>
#include "findings_merge.hpp"
#include "walk_open.hpp"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <deque>
#include <memory>
#include <optional>
#include <set>

namespace oms::sdk {

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

ScanShape shape_of(const ScanRequest& request) { return ScanShape{request.suffixes, request.names, request.links}; }

// A folder's mtime and ctime move with every entry created, renamed or
// removed in it, from whatever process, only on these: a cache trusts
// nothing else. Not overlayfs: a merged folder shows its upper folder's
// times, and an entry added to a lower one (by the user, or by another
// container sharing the layer) leaves them unchanged.
bool folder_times_trusted(int fd) { return changed_only_through_this_kernel(file_system_type(fd)); }

// One root: reuses what the old cache says about unchanged folders, reads
// the others, and builds the cache for the next start as it goes.
class IncrementalWalker {
public:
    IncrementalWalker(const ScanRequest& request, ScanStats& stats, int64_t window_ns)
        : request_(request), match_(request), stats_(stats), window_ns_(window_ns) {}

    enum class Outcome { walked, changed, uncacheable };

    // Walks `root`, reusing what `old` says: `changed` when the fresh cache
    // (fresh()) differs from it; `uncacheable`, with nothing walked, when the
    // root's file system does not keep folder times a cache can trust.
    Outcome walk(const std::string& root, std::optional<ScanCache> old, ScanFindings& found) {
        fresh_.clear();
        read_.clear();
        passed_over_ = false;
        old_cache_ = std::move(old);
        vanished_.clear();
        root_ = root;
        found_ = &found;
        if (match_.skipped(root)) return Outcome::walked;
        ScopedFd root_fd(open_walk_folder(AT_FDCWD, root.c_str(), root, request_));
        struct stat st;
        if (root_fd.get() < 0 || fstat(root_fd.get(), &st) != 0) return Outcome::walked;  // gone: nothing to record
        if (!folder_times_trusted(root_fd.get())) return Outcome::uncacheable;
        root_fd_ = root_fd.get();
        root_device_ = st.st_dev;
        if (old_cache_ && !same_root(*old_cache_, st)) old_cache_.reset();  // another folder there: nothing to reuse
        if (old_cache_) ++stats_.caches_loaded;
        old_ = old_cache_ ? &old_cache_->folders : nullptr;
        if (old_) fresh_.reserve(old_->size());
        changed_ = !old_;
        const FolderRecord* cached = trusted_record("");
        const FolderRecord& record = reuse_or_read(root_fd.get(), root, cached);
        visit_subfolders(root_fd.get(), root, "", 0, record, &record == cached);
        if (old_ && old_->size() != fresh_.size()) changed_ = true;
        return changed_ ? Outcome::changed : Outcome::walked;
    }

    // The folders of the last walk, each with its record (the old cache's
    // when reused): what save_scan_cache writes for the next start.
    const CacheEntries& fresh() const { return fresh_; }

    // A folder below the root that its parent listed but that was gone when
    // opened: the walk must start again (secret_scan.hpp, kWalkTries).
    const std::string& vanished() const { return vanished_; }

    // Another user's folder was passed over: it can become readable (a chown,
    // a group the user joins) with no event the scan keeper sees, so the
    // walk's findings are never taken as they are (ScanSummary).
    bool passed_over() const { return passed_over_; }

private:
    using Folders = std::unordered_map<std::string, FolderRecord>;

    const ScanRequest& request_;
    const ScanMatcher match_;
    ScanStats& stats_;
    int64_t window_ns_;
    std::string root_;
    std::optional<ScanCache> old_cache_;  // kept while fresh_ points into it
    Folders* old_ = nullptr;
    CacheEntries fresh_;                  // no map: built in walk order, looked up never
    std::deque<FolderRecord> read_;       // the records of the folders read in this walk
    ScanFindings* found_ = nullptr;
    bool changed_ = false;
    std::string vanished_;  // a folder listed (or cached) but gone when opened
    dev_t root_device_ = 0; // a folder on another file system (a mount below the root) is never trusted
    int root_fd_ = -1;      // open while walk() runs
    bool passed_over_ = false;
    SiblingStats siblings_;  // its helper thread lives as long as the walker
    alignas(8) char buffer_[kScanBufferSize];

    std::string full_path(const std::string& relative) const {
        return relative.empty() ? root_ : root_ + "/" + relative;
    }

    static bool same_root(const ScanCache& cache, const struct stat& st) {
        auto it = cache.folders.find("");
        return it != cache.folders.end() && it->second.stamp.device == uint64_t(st.st_dev) &&
               it->second.stamp.inode == uint64_t(st.st_ino);
    }

    // The cache's record of a folder, when it may stand in for a read.
    FolderRecord* trusted_record(const std::string& relative) const {
        if (!old_) return nullptr;
        auto it = old_->find(relative);
        return it != old_->end() && it->second.trusted ? &it->second : nullptr;
    }

    // A folder to visit below an open one: its name there, its path below the
    // root, the cache's record of it and, for a cached folder with no
    // subfolders, the stat that decides whether that record still holds.
    struct Subfolder {
        const std::string* name = nullptr;
        std::string relative;
        const FolderRecord* cached = nullptr;
        const SiblingStat* stat = nullptr;
        bool settled = false;    // its record holds: no system call needed (visit_settled)
        bool from_root = false;  // opened name by name from the root (open_below_root), not from a parent
    };

    // A cached folder with no subfolders needs one stat and no descriptor.
    void visit(int parent, const Subfolder& sub, int depth) {
        const std::string path = full_path(sub.relative);
        if (match_.skipped(path)) return;
        if (sub.settled) return visit_settled(path, sub.relative, depth, *sub.cached);
        if (sub.stat && unchanged_leaf(*sub.stat, *sub.cached)) {
            ++stats_.folders_reused;
            keep(path, sub.relative, *sub.cached);
            return;
        }
        ScopedFd fd(sub.from_root ? open_below_root(sub.relative, path)
                                  : open_walk_folder(parent, sub.name->c_str(), path, request_));
        if (fd.get() < 0 && errno == EACCES) {  // another user's, nothing of the user's in it
            passed_over_ = true;                // but it may be the user's later, without an event
            return;
        }
        if (fd.get() < 0) {                            // gone, or no longer a folder
            if (vanished_.empty()) vanished_ = path;
            return;
        }
        const FolderRecord& record = reuse_or_read(fd.get(), path, sub.cached);
        visit_subfolders(fd.get(), path, sub.relative, depth, record, &record == sub.cached);
    }

    // A folder whose cached record holds now, found without a system call:
    // the scan keeper saw no change to it since the cache was made, and the
    // folder holding it is settled too (its entries, so which folder this
    // name leads to, did not change either; mounts are the keeper's loss).
    // A subfolder the keeper cannot vouch for is opened by its path, through
    // settled folders only, and checked as in a walk without a keeper.
    void visit_settled(const std::string& path, const std::string& relative, int depth, const FolderRecord& record) {
        ++stats_.folders_reused;
        ++stats_.folders_vouched;
        for (const auto& name : record.subfolders) {
            const std::string sub_relative = join(relative, name);
            const std::string sub_path = full_path(sub_relative);
            if (depth + 1 > kMaxScanDepth) {
                hide_too_deep(sub_path);
                continue;
            }
            if (match_.skipped(sub_path)) continue;
            const FolderRecord* cached = trusted_record(sub_relative);
            if (cached && cached->unchanged) {
                visit_settled(sub_path, sub_relative, depth + 1, *cached);
                continue;
            }
            Subfolder sub;
            sub.name = &name;
            sub.relative = sub_relative;
            sub.cached = cached;
            sub.from_root = true;
            visit(root_fd_, sub, depth + 1);
        }
        keep(path, relative, record);
    }

    // Opens the folder `relative` below the root one name at a time from the
    // root's descriptor, never following a link on the way (the settled
    // folders above it were not opened): no link swapped in meanwhile leads
    // out of the tree, and no path is too long to open. As open_walk_folder.
    int open_below_root(const std::string& relative, const std::string& path) {
        ScopedFd held;
        int at = root_fd_;
        size_t start = 0;
        for (size_t slash; (slash = relative.find('/', start)) != std::string::npos; start = slash + 1) {
            const std::string name = relative.substr(start, slash - start);
            const int next = openat(at, name.c_str(), O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
            if (next < 0) return -1;  // errno as open_walk_folder's: gone, not a folder, not ours
            held.reset(next);
            at = next;
        }
        return open_walk_folder(at, relative.c_str() + start, path, request_);
    }

    // Walks below a folder that is open as `fd` (at `path`), then keeps it.
    // `settled`: its record was reused, so its entries are those recorded.
    void visit_subfolders(int fd, const std::string& path, const std::string& relative, int depth,
                          const FolderRecord& record, bool settled) {
        std::vector<SiblingStat> leaf_stats;
        std::vector<Subfolder> subs = subfolders_of(fd, relative, record, settled, leaf_stats);
        for (const Subfolder& sub : subs) {
            if (depth + 1 > kMaxScanDepth) hide_too_deep(full_path(sub.relative));
            else visit(fd, sub, depth + 1);
        }
        keep(path, relative, record);
    }

    // The subfolders of an open folder, the cached ones with no subfolders of
    // their own stat'ed together (sibling_stats.hpp): `leaf_stats` holds the
    // stats they point at.
    std::vector<Subfolder> subfolders_of(int fd, const std::string& relative, const FolderRecord& record,
                                         bool settled, std::vector<SiblingStat>& leaf_stats) {
        std::vector<Subfolder> subs;
        subs.reserve(record.subfolders.size());
        std::vector<const char*> leaf_names;
        for (const auto& name : record.subfolders) {
            Subfolder& sub = subs.emplace_back();
            sub.name = &name;
            sub.relative = join(relative, name);
            sub.cached = trusted_record(sub.relative);
            sub.settled = settled && sub.cached && sub.cached->unchanged;
            if (sub.cached && !sub.settled && sub.cached->subfolders.empty()) leaf_names.push_back(name.c_str());
        }
        if (leaf_names.empty()) return subs;
        siblings_.stat_all(fd, leaf_names, leaf_stats);
        size_t next = 0;
        for (Subfolder& sub : subs)
            if (sub.cached && !sub.settled && sub.cached->subfolders.empty()) sub.stat = &leaf_stats[next++];
        return subs;
    }

    // Its findings go out, and its record into the next cache.
    void keep(const std::string& path, const std::string& relative, const FolderRecord& record) {
        emit(path, record);
        fresh_.emplace_back(relative, &record);
    }

    static bool unchanged_leaf(const SiblingStat& now, const FolderRecord& cached) {
        return now.error == 0 && S_ISDIR(now.st.st_mode) && stamp_of(now.st) == cached.stamp;
    }

    // The same folder object with the same times holds the same entries.
    // Otherwise it is read; one that cannot be fails the run (walk_open.hpp):
    // a command could otherwise hide a keypair behind a chmod 000.
    const FolderRecord& reuse_or_read(int fd, const std::string& path, const FolderRecord* cached) {
        const int64_t read_at = now_ns();  // before the stat: a change after it is newer than this
        struct stat st;
        if (fstat(fd, &st) != 0) unreadable_folder(request_.backend, path, errno);
        if (cached && stamp_of(st) == cached->stamp) {
            ++stats_.folders_reused;
            return *cached;
        }
        changed_ = true;
        FolderRecord& record = read_.emplace_back();
        // Listable but not searchable (mode 0400): its subfolders could not be
        // opened. Ours: searchable again, with the stamp of after the change.
        // Root passes over modes, so nothing is changed for it.
        if (st.st_uid == geteuid() && (st.st_mode & (S_IRUSR | S_IXUSR)) != (S_IRUSR | S_IXUSR) &&
            faccessat(fd, ".", R_OK | X_OK, AT_EACCESS) != 0 && restore_owner_rights(fd) && fstat(fd, &st) != 0)
            unreadable_folder(request_.backend, path, errno);
        record.stamp = stamp_of(st);
        record.trusted = st.st_dev == root_device_ &&
                         std::max(record.stamp.mtime_ns, record.stamp.ctime_ns) < read_at - window_ns_;
        if (!for_each_entry(fd, buffer_, sizeof buffer_, [&](const char* name, unsigned char type) {
                classify(fd, path, name, type, record);
            }))
            unreadable_folder(request_.backend, path, errno);
        ++stats_.folders_read;
        return record;
    }

    void classify(int fd, const std::string& folder, const char* name, unsigned char type, FolderRecord& record) {
        const unsigned char listed = type;
        type = entry_type(fd, name, type);
        if (type == DT_UNKNOWN) {  // gone since it was listed
            // Where listings carry no types, it may have been a folder renamed
            // to a name the listing had passed: the walk starts again.
            if (listed == DT_UNKNOWN && gone_or_not_a_folder(errno) && vanished_.empty())
                vanished_ = folder + "/" + name;
            return;
        }
        if (match_.named(name)) record.named.emplace_back(name);
        if (type == DT_LNK && request_.links) record.links.emplace_back(name);
        const bool matches = match_.matches(folder + "/" + name);
        if (matches) record.matches.push_back(NameMatch{name, type == DT_LNK});  // a folder: hidden whole
        else if (type == DT_DIR) record.subfolders.emplace_back(name);
    }

    // Not walked: hidden whole, like a folder with a keypair's name.
    void hide_too_deep(const std::string& path) {
        found_->secrets.insert(path);
        found_->too_deep.insert(path);
        stats_.too_deep.push_back(path);
    }

    // A symlink counts when it points at something now, as in the full walk.
    void emit(const std::string& folder, const FolderRecord& record) {
        for (const auto& match : record.matches) {
            std::string path = folder + "/" + match.name;
            if (!match.symlink || link_leads_somewhere(path)) found_->secrets.insert(std::move(path));
        }
        for (const auto& name : record.named) found_->named.insert(folder + "/" + name);
        for (const auto& name : record.links) found_->links.insert(folder + "/" + name);
    }
};

// The scan keeper's word on one root's cache, asked before anything of the
// root is read: `now` marks the cache this start writes (whatever is read
// from now on holds as of it).
struct KeeperWord {
    KeeperMark now;
    std::vector<KeeperFolder> asked;  // empty when answered by ticket (the cache's own folders, in order)
    std::vector<bool> unchanged;      // one per folder of the cache
    bool all_unchanged = false;       // and none was left out
};

// Asked by the cache's ticket when it has one (a 100-byte question), else,
// or when the keeper does not know the ticket, by the cache's folders.
std::optional<KeeperWord> ask_keeper(ScanKeeper* keeper, const std::string& root, const struct stat& root_st,
                                     const ScanCacheFile* reading) {
    if (!keeper) return std::nullopt;
    KeeperRequest request;
    request.root = {uint64_t(root_st.st_dev), uint64_t(root_st.st_ino)};
    request.root_path = root;
    const ScanSummary* summary = reading ? &reading->summary() : nullptr;
    const bool marked = summary && summary->keeper.known();
    if (marked) request.since = summary->keeper;
    const size_t folders = marked ? summary->folder_count : 0;
    std::optional<KeeperAnswer> answer;
    if (marked && summary->ticket != 0) {
        request.ticket = summary->ticket;
        answer = keeper->ask(request, folders);
        if (!answer) return std::nullopt;  // no keeper, or no answer in time: not asked twice
        if (answer->ticket == 0 && !(answer->now.id == summary->keeper.id)) {
            // Another keeper's mark (this one started since): it vouches for
            // nothing of that cache, so its folders are not sent; its mark
            // is what the next cache is written with.
            KeeperWord word;
            word.now = answer->now;
            word.unchanged.assign(folders, false);
            return word;
        }
    }
    std::vector<KeeperFolder> asked;
    if (!answer || answer->ticket == 0) {
        if (marked) {
            auto ids = reading->folders();
            if (!ids) return std::nullopt;
            asked = std::move(*ids);
        }
        request.ticket = 0;
        request.folders = std::move(asked);
        answer = keeper->ask(request, request.folders.size());
        if (!answer) return std::nullopt;
        asked = std::move(request.folders);  // given back with the answer (KeeperWord::asked)
    }
    KeeperWord word;
    word.now = answer->now;
    word.all_unchanged = folders > 0;
    for (bool unchanged : answer->unchanged) word.all_unchanged = word.all_unchanged && unchanged;
    word.asked = std::move(asked);  // empty when answered by ticket: read only if the cache is walked
    word.unchanged = std::move(answer->unchanged);
    return word;
}

void mark_unchanged(ScanCache& cache, const KeeperWord& word) {
    std::unordered_map<KeeperFolder, bool, KeeperFolderHash> by_folder;
    for (size_t i = 0; i < word.asked.size(); ++i) by_folder[word.asked[i]] = word.unchanged[i];
    for (auto& [relative, record] : cache.folders) {
        auto found = by_folder.find({record.stamp.device, record.stamp.inode});
        record.unchanged = found != by_folder.end() && found->second;
    }
}

// A cache written while the keeper was busy (it turns askers away while it
// walks a new root) has no ticket, and every start would send its folders.
// Once the keeper vouches for all of them, the same cache, mark and all, is
// written again with a ticket for its folders. A newer cache another start
// renamed in meanwhile is replaced by this older one: its mark is older,
// so the next start is asked about more, never less.
bool give_ticket(ScanKeeper& keeper, const ScanCacheFile& reading, const std::string& file,
                 const std::string& root, const struct stat& root_st, const ScanShape& shape) {
    const ScanSummary& summary = reading.summary();
    if (!keeper.worth_asking(summary.folder_count)) return false;
    std::optional<ScanCache> cache = reading.records();
    if (!cache) return false;
    CacheEntries entries;
    entries.reserve(cache->folders.size());
    for (const auto& [relative, record] : cache->folders) entries.emplace_back(relative, &record);
    const uint64_t ticket =
        keeper.remember({uint64_t(root_st.st_dev), uint64_t(root_st.st_ino)}, root, folder_ids(entries));
    if (ticket == 0) return false;
    const WalkFacts facts{summary.skip, summary.too_deep, summary.passed_over};
    return save_scan_cache(file, root, shape, summary.keeper, entries, facts, ticket);
}

// Every folder unchanged and the root's path still leading to the root: the
// last walk's findings hold as they are.
ScanFindings summarized(const ScanSummary& summary) {
    ScanFindings found;
    found.secrets.insert(summary.secrets.begin(), summary.secrets.end());
    for (const auto& link : summary.secret_links)
        if (link_leads_somewhere(link)) found.secrets.insert(link);  // as emit() decides
    found.named.insert(summary.named.begin(), summary.named.end());
    found.links.insert(summary.links.begin(), summary.links.end());
    found.too_deep.insert(summary.too_deep.begin(), summary.too_deep.end());
    return found;
}

}  // namespace

ScanFindings scan_tree_cached(const ScanRequest& request, const std::string& cache_dir, ScanStats* stats,
                              int64_t untrusted_window_ns, ScanKeeper* keeper) {
    ScanStats local;
    ScanStats& counts = stats ? *stats : local;
    ScanFindings found;
    auto walker = std::make_unique<IncrementalWalker>(request, counts, untrusted_window_ns);  // 64 KiB buffer
    for (const auto& root : request.roots) {
        const Kind kind = kind_of(root);
        if (kind == Kind::missing) continue;
        ScanRequest alone = request;  // the plain two-thread walk, for a file or times not to trust
        alone.roots = {root};
        if (kind != Kind::folder) {
            merge_findings(found, scan_tree(alone));
            continue;
        }
        const std::string file = cache_file_for(cache_dir, root);
        // Read once: the keeper's answer is about this reading's folders,
        // and is applied to this reading's records only (ScanCacheFile).
        const std::unique_ptr<ScanCacheFile> reading = ScanCacheFile::open(file, root, shape_of(request));
        struct stat root_st;
        std::optional<KeeperWord> word;
        const ScanSummary* summary = reading ? &reading->summary() : nullptr;
        const std::optional<size_t> cached_folders =
            summary ? std::optional<size_t>(summary->folder_count) : std::nullopt;
        const bool asking = keeper && keeper->worth_asking(cached_folders) && stat(root.c_str(), &root_st) == 0;
        if (asking) word = ask_keeper(keeper, root, root_st, reading.get());
        if (word) ++counts.keeper_answers;
        if (word && word->all_unchanged && !summary->passed_over && summary->skip == request.skip &&
            summary->root.device == uint64_t(root_st.st_dev) && summary->root.inode == uint64_t(root_st.st_ino)) {
            counts.folders_reused += summary->folder_count;
            counts.folders_vouched += summary->folder_count;
            merge_findings(found, summarized(*summary));
            if (summary->ticket == 0 && !word->asked.empty() &&
                give_ticket(*keeper, *reading, file, root, root_st, shape_of(request)))
                ++counts.caches_written;
            continue;  // the cache holds as of its mark still
        }
        ScanFindings in_root;
        std::optional<ScanCache> cache = reading ? reading->records() : std::nullopt;
        const bool vouched_by_ticket = word && summary && word->asked.empty() &&
                                       word->unchanged.size() == summary->folder_count &&
                                       std::find(word->unchanged.begin(), word->unchanged.end(), true) !=
                                           word->unchanged.end();
        if (cache && vouched_by_ticket)  // which folders the words are about; none vouched for if unreadable
            if (auto ids = reading->folders()) word->asked = std::move(*ids);
        if (cache && word) mark_unchanged(*cache, *word);
        auto outcome = walker->walk(root, std::move(cache), in_root);
        for (int attempt = 2; !walker->vanished().empty(); ++attempt) {  // no cache from a walk that missed a folder
            if (attempt > kWalkTries) changed_during_walk(request.backend, walker->vanished());
            in_root = ScanFindings{};
            outcome = walker->walk(root, std::nullopt, in_root);
        }
        if (outcome == IncrementalWalker::Outcome::uncacheable) {
            ++counts.roots_uncached;
            merge_findings(found, scan_tree(alone));
            continue;
        }
        const WalkFacts facts{request.skip, {in_root.too_deep.begin(), in_root.too_deep.end()}, walker->passed_over()};
        merge_findings(found, std::move(in_root));
        // A new mark alone is worth writing: the next start asks from it on,
        // naming the folders by the ticket the keeper gives for them now.
        if (outcome == IncrementalWalker::Outcome::changed || word) {
            const uint64_t ticket =
                word && keeper->worth_asking(walker->fresh().size())
                    ? keeper->remember({uint64_t(root_st.st_dev), uint64_t(root_st.st_ino)}, root,
                                       folder_ids(walker->fresh()))
                    : 0;
            if (save_scan_cache(file, root, shape_of(request), word ? word->now : KeeperMark{}, walker->fresh(), facts,
                                ticket))
                ++counts.caches_written;
        }
    }
    return found;
}

std::vector<std::string> find_secret_files_cached(const ScanRequest& request, const std::string& cache_dir,
                                                  ScanStats* stats, int64_t untrusted_window_ns,
                                                  ScanKeeper* keeper) {
    if (request.suffixes.empty()) return {};
    ScanRequest secrets_only{request.roots, request.suffixes, request.skip, {}, false};
    const ScanFindings found = scan_tree_cached(secrets_only, cache_dir, stats, untrusted_window_ns, keeper);
    return std::vector<std::string>(found.secrets.begin(), found.secrets.end());
}

}  // namespace oms::sdk
