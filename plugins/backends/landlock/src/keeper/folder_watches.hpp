// What the scan keeper knows about the folders it watches: one inotify watch
// per folder, and for each the moment (a sequence number of the keeper's own,
// not a clock) it was first watched and the last moment its list of entries
// changed. A folder is unchanged since moment S when it was watched at S or
// before and no event on it came after S, and no event was lost since S.
//
// Why this is exact: the kernel queues an inotify event inside the system
// call that creates, removes or renames an entry, before that call returns;
// the keeper reads every queued event before it answers. So whatever a
// process finished before a launcher asked is in the answer. Events are
// per inode, whichever path, mount or namespace the change came through.
// Mounts change what a path leads to without any event on a folder; those
// are watched separately (mount_watch.hpp) and count as a loss here.
#pragma once
#include "keeper_protocol.hpp"
#include <oms/scoped_fd.hpp>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

namespace oms::landlock {

using FolderId = KeeperFolder;
using FolderIdHash = KeeperFolderHash;

// Deeper than the keypair search goes (kMaxScanDepth, 256): such folders
// are hidden whole, never searched, so never asked about.
constexpr size_t kMaxWatchDepth = 300;

class FolderWatches {
public:
    // `max_watches` bounds the watches this table takes (the user's other
    // programs share the per-user limit); folders past it stay unwatched and
    // are never reported unchanged.
    explicit FolderWatches(size_t max_watches);

    bool ready() const { return inotify_.get() >= 0; }
    int inotify_fd() const { return inotify_.get(); }

    // Reads and applies every event queued now; never blocks.
    void drain();

    // A new moment: everything applied so far is at or before it.
    uint64_t now() { return ++moment_; }

    // Nothing before this moment may be called unchanged any more (a mount
    // moved what a path leads to). Events lost (an overflow) also drop
    // every watch, which are taken again by cover_again().
    void lose_all();

    // Watches `root` and every folder below it not watched yet, breadth
    // first, staying on file systems whose changes all pass through this
    // kernel. Folders already watched only get their path brought up to
    // date. Only when `root` is still the folder `expected`, and once per
    // root: events keep it watched from then on (cover_again after a loss
    // or a move).
    void cover(const std::string& root, const FolderId& expected);

    // Called every kFoldersBetweenPauses folders a walk watches: a long walk
    // (a new 5,000-folder root takes about 250 ms) must not keep askers
    // waiting out their time limit.
    void set_pause(std::function<void()> pause) { pause_ = std::move(pause); }
    static constexpr size_t kFoldersBetweenPauses = 128;

    // The roots covered so far, walked again by cover_again().
    void cover_again();
    bool needs_cover_again() const { return cover_again_; }

    bool unchanged_since(const FolderId& id, uint64_t moment) const;
    size_t watch_count() const { return by_id_.size(); }

    // Counts every change to what unchanged_since() could answer: an event
    // applied, a watch taken or dropped, a loss. While it stays the same,
    // every answer stays the same too.
    uint64_t changes() const { return changes_; }

private:
    struct Watch {
        int descriptor = -1;
        std::string path;  // where it was last seen; only used to open new subfolders
        uint64_t watched_at = 0;
        uint64_t changed_at = 0;
    };

    sdk::ScopedFd inotify_;
    size_t max_watches_;
    uint64_t moment_ = 0;
    uint64_t lost_at_ = 0;
    uint64_t changes_ = 0;
    bool cover_again_ = false;  // a folder moved (paths are stale) or events were lost (new folders unwatched)
    // By the folder, so that an answer takes one lookup per folder asked
    // about; events name the descriptor.
    std::unordered_map<FolderId, Watch, FolderIdHash> by_id_;
    std::unordered_map<int, FolderId> by_descriptor_;
    std::unordered_map<std::string, FolderId> roots_;
    std::function<void()> pause_;
    size_t walked_since_pause_ = 0;

    void apply(int descriptor, uint32_t mask, const char* name);
    void start_again();
    void watch_new_folder(FolderId parent, std::string parent_path, const char* name);
    void watch_tree(int top_fd, const std::string& top);
    bool watch_one(int fd, const std::string& path, std::vector<std::string>& subfolders);
};

}  // namespace oms::landlock
