// The persistent record of one walked root, so the next start only stats
// the folders it knows instead of reading them all again. A folder's entry
// list can only change through create/rename/link/unlink in it, and each of
// those sets the folder's mtime and ctime; a folder whose (device, inode,
// mtime, ctime) are unchanged therefore still holds the entries recorded.
#pragma once
#include <oms/scan_keeper.hpp>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace oms::sdk {

struct FolderStamp {
    uint64_t device = 0;
    uint64_t inode = 0;
    int64_t mtime_ns = 0;
    int64_t ctime_ns = 0;  // cannot be set by utimensat: catches a forged mtime
    bool operator==(const FolderStamp& other) const {
        return device == other.device && inode == other.inode && mtime_ns == other.mtime_ns &&
               ctime_ns == other.ctime_ns;
    }
};

// An entry whose name matches a suffix. Symlinks are kept as candidates: the
// target they point at can appear later without the folder changing, so
// whether one counts is decided again at every start.
struct NameMatch {
    std::string name;
    bool symlink = false;
};

struct FolderRecord {
    FolderStamp stamp;
    bool trusted = false;                 // false: changed too near the read, read it again
    std::vector<std::string> subfolders;  // names of the entries that are folders
    std::vector<NameMatch> matches;
    std::vector<std::string> named;       // entries whose name a WRITE_DENY_NAME rule gives (".git")
    std::vector<std::string> links;       // every symlink, when the walk collects them
    bool unchanged = false;               // not stored: the scan keeper says so for this start
};

// What a walk looked for: a cache made for another shape is not used.
struct ScanShape {
    std::vector<std::string> suffixes;
    std::vector<std::string> names;
    bool links = false;
    bool operator==(const ScanShape& other) const {
        return suffixes == other.suffixes && names == other.names && links == other.links;
    }
};

struct ScanCache {
    std::string root;
    ScanShape shape;
    KeeperMark keeper;  // every record holds as of this moment of that keeper (none: unknown)
    std::unordered_map<std::string, FolderRecord> folders;   // by path relative to root ("" = root)
};

// What the walk that wrote a cache found, kept ahead of its records: a start
// for which the scan keeper vouches for every folder takes it as it is and
// never reads the records (a large worktree's cache is 5,000 of them).
struct ScanSummary {
    KeeperMark keeper;
    uint64_t ticket = 0;                  // the keeper's name for `folders` (0: none)
    std::vector<std::string> skip;        // the walk's skip list: another list, another result
    KeeperFolder root;                    // the root's (device, inode)
    size_t folder_count = 0;
    std::vector<KeeperFolder> folders;    // every folder recorded, in the records' order (ScanCacheFile::folders)
    std::vector<std::string> secrets;     // matches that are not links, and the folders too deep
    std::vector<std::string> secret_links;  // matches that are links: they count when they lead somewhere
    std::vector<std::string> named;
    std::vector<std::string> links;
    std::vector<std::string> too_deep;
    bool passed_over = false;             // the walk passed over a folder it may not read (another user's)
};

// The file that holds the cache of `root` inside `cache_dir`.
std::string cache_file_for(const std::string& cache_dir, const std::string& root);

// Nullopt when the file is missing, unreadable, not owned by us, written by
// another format version, for another root or shape, or damaged (checksum):
// the caller then walks the root in full.
std::optional<ScanCache> load_scan_cache(const std::string& file, const std::string& root, const ScanShape& shape);

// One reading of a cache file: the summary at once (checked by a checksum
// of its own), the records from the very same bytes when asked. A start
// that asked the scan keeper about the summary's folders applies the
// answer to these records only: a cache another start renames over the
// file meanwhile (an older one, made before a keypair was added) is never
// mixed in.
class ScanCacheFile {
public:
    // Nullptr as load_scan_cache gives nullopt.
    static std::unique_ptr<ScanCacheFile> open(const std::string& file, const std::string& root,
                                               const ScanShape& shape);
    // Without its folders: a start the keeper vouches for by ticket never
    // reads them.
    const ScanSummary& summary() const { return summary_; }
    // The summary's folders (nullopt: damaged, their own checksum).
    std::optional<std::vector<KeeperFolder>> folders() const;
    std::optional<ScanCache> records() const;  // nullopt: damaged (the whole file's checksum)

private:
    ScanCacheFile() = default;
    std::shared_ptr<const void> mapping_;
    std::string_view bytes_;
    std::string root_;
    ScanShape shape_;
    ScanSummary summary_;
};

// The summary alone, its folders read (nullopt as above).
std::optional<ScanSummary> load_scan_summary(const std::string& file, const std::string& root,
                                             const ScanShape& shape);

// The folders of one walk in the order walked, each with its record.
using CacheEntries = std::vector<std::pair<std::string, const FolderRecord*>>;

// Each folder's (device, inode), in the walk's order: the summary's folders.
std::vector<KeeperFolder> folder_ids(const CacheEntries& folders);

// What a walk was told and found beyond its records.
struct WalkFacts {
    std::vector<std::string> skip;
    std::vector<std::string> too_deep;
    bool passed_over = false;
};

// Writes through a 0600 temporary file renamed over `file`, so a reader sees
// the old cache or the new one, never half of one. Returns false on failure
// (the next start simply walks in full).
// `ticket`: the keeper's name for these folders (ScanKeeper::remember).
bool save_scan_cache(const std::string& file, const std::string& root, const ScanShape& shape,
                     const KeeperMark& keeper, const CacheEntries& folders, const WalkFacts& facts = {},
                     uint64_t ticket = 0);
bool save_scan_cache(const std::string& file, const ScanCache& cache);

}  // namespace oms::sdk
