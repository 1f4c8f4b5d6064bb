#include "folder_watches.hpp"

#include <oms/dirent64.hpp>
#include <oms/file_system_trust.hpp>

#include <errno.h>
#include <fcntl.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

namespace oms::landlock {

namespace {

// What changes a folder's list of entries, or whether it can be listed at
// all (its own mode: IN_ATTRIB without a name). IN_ONLYDIR: a folder
// replaced by something else between open and watch is not watched.
constexpr uint32_t kFolderEvents = IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | IN_ATTRIB |
                                   IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR;
constexpr int kFolderFlags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;

// Not overlayfs either: a change made to its upper or lower folder outside
// the overlay raises no event on the overlay's folder.
bool changes_all_seen(int fd) { return sdk::changed_only_through_this_kernel(sdk::file_system_type(fd)); }

FolderId id_of(const struct stat& st) { return FolderId{uint64_t(st.st_dev), uint64_t(st.st_ino)}; }

}  // namespace

FolderWatches::FolderWatches(size_t max_watches)
    : inotify_(inotify_init1(IN_NONBLOCK | IN_CLOEXEC)), max_watches_(max_watches) {}

void FolderWatches::drain() {
    alignas(struct inotify_event) char buffer[64 * 1024];
    for (;;) {
        const ssize_t n = read(inotify_.get(), buffer, sizeof buffer);
        if (n <= 0) return;  // EAGAIN: nothing more queued
        for (ssize_t at = 0; at < n;) {
            const auto* event = reinterpret_cast<const struct inotify_event*>(buffer + at);
            at += ssize_t(sizeof *event + event->len);
            apply(event->wd, event->mask, event->len > 0 ? event->name : nullptr);
        }
    }
}

void FolderWatches::lose_all() {
    lost_at_ = now();
    ++changes_;
}

// After an overflow the kernel has dropped events, IN_IGNORED among them:
// the table may hold watches the kernel removed, and a new folder that got
// a removed one's inode would look watched. Everything starts again.
void FolderWatches::start_again() {
    inotify_.reset(inotify_init1(IN_NONBLOCK | IN_CLOEXEC));
    by_descriptor_.clear();
    by_id_.clear();
    lose_all();
    cover_again_ = true;
}

void FolderWatches::apply(int descriptor, uint32_t mask, const char* name) {
    ++changes_;  // whatever it turns out to be: counting one too many only costs a lookup per folder
    if (mask & IN_Q_OVERFLOW) return start_again();
    auto found = by_descriptor_.find(descriptor);
    if (found == by_descriptor_.end()) return;
    if (mask & IN_IGNORED) {  // the folder is gone (or its file system): forget it, it is unwatched now
        by_id_.erase(found->second);
        by_descriptor_.erase(found);
        return;
    }
    Watch& watch = by_id_.at(found->second);
    // A file's own mode changes nothing listed. A subfolder's does: one the
    // walk could not open may open now (its own watch, if any, has it too).
    if ((mask & IN_ATTRIB) && name && !(mask & IN_ISDIR)) return;
    watch.changed_at = now();
    // A new folder is watched now (it is new: its tree is as small as what
    // was made in it so far). One moved in is not walked here: moving a
    // large tree back and forth would keep the keeper walking; it stays
    // unwatched, so never vouched for, until the next cover_again().
    if ((mask & IN_ISDIR) && (mask & IN_CREATE) && name) watch_new_folder(found->second, watch.path, name);
    // A folder moved: the paths recorded below it are stale (nothing is
    // vouched for by path, but new subfolders are opened by it).
    if (((mask & IN_ISDIR) && (mask & (IN_MOVED_FROM | IN_MOVED_TO))) || (mask & IN_MOVE_SELF))
        cover_again_ = true;
}

// Only from the folder the event was on, reached by its recorded path and
// checked to be that folder: after a move the path may lead elsewhere (a
// link a command put there), and the walk then waits for cover_again().
void FolderWatches::watch_new_folder(FolderId parent, std::string parent_path, const char* name) {
    if (cover_again_) return;  // paths may be stale until then
    sdk::ScopedFd parent_fd(open(parent_path.c_str(), kFolderFlags));
    struct stat st;
    if (parent_fd.get() < 0 || fstat(parent_fd.get(), &st) != 0 || !(id_of(st) == parent)) return;
    const int fd = openat(parent_fd.get(), name, kFolderFlags);
    if (fd >= 0) watch_tree(fd, parent_path + "/" + name);
}

void FolderWatches::cover(const std::string& root, const FolderId& expected) {
    auto known = roots_.find(root);
    if (known != roots_.end() && known->second == expected) return;  // events keep it watched
    const int fd = open(root.c_str(), kFolderFlags);
    struct stat st;
    if (fd < 0) return;
    if (fstat(fd, &st) != 0 || !(id_of(st) == expected)) {
        close(fd);
        return;
    }
    roots_[root] = expected;
    watch_tree(fd, root);
}

void FolderWatches::cover_again() {
    cover_again_ = false;
    for (const auto& [root, id] : roots_) {
        const int fd = open(root.c_str(), kFolderFlags);
        struct stat st;
        if (fd >= 0 && fstat(fd, &st) == 0 && id_of(st) == id) watch_tree(fd, root);
        else if (fd >= 0) close(fd);
    }
}

bool FolderWatches::unchanged_since(const FolderId& id, uint64_t moment) const {
    if (moment < lost_at_) return false;
    auto found = by_id_.find(id);
    return found != by_id_.end() && found->second.watched_at <= moment && found->second.changed_at <= moment;
}

// Depth first from open descriptors: each folder is opened by its one name
// in its parent's descriptor, never through a link, so neither a link
// swapped in nor a path gone stale after a move leads the walk out of the
// tree, and no path is too long to open. Takes `top_fd`. Folders more than
// kMaxWatchDepth below `top` stay unwatched, so never vouched for.
void FolderWatches::watch_tree(int top_fd, const std::string& top) {
    struct Frame {
        int fd;
        std::string path;
        std::vector<std::string> subfolders;
        size_t next = 0;
    };
    std::vector<Frame> stack;
    const auto close_all = [&] {
        for (const Frame& frame : stack) close(frame.fd);
        stack.clear();
    };
    const auto enter = [&](int fd, std::string path) {
        if (pause_ && ++walked_since_pause_ >= kFoldersBetweenPauses) {
            walked_since_pause_ = 0;
            pause_();  // may not touch the table: the walk goes on from its descriptors
        }
        std::vector<std::string> subfolders;
        const bool more = watch_one(fd, path, subfolders);
        stack.push_back(Frame{fd, std::move(path), std::move(subfolders)});
        return more;
    };
    if (!enter(top_fd, top)) return close_all();
    while (!stack.empty()) {
        Frame& frame = stack.back();
        if (frame.next == frame.subfolders.size() || stack.size() > kMaxWatchDepth) {
            close(frame.fd);
            stack.pop_back();
            continue;
        }
        const std::string& name = frame.subfolders[frame.next++];
        const int fd = openat(frame.fd, name.c_str(), kFolderFlags);
        if (fd >= 0 && !enter(fd, frame.path + "/" + name)) return close_all();  // no more watches
    }
}

// Watches the open folder `fd` (at `path`) and lists its subfolders' names.
// False when no more watches can be taken: the walk stops there.
bool FolderWatches::watch_one(int fd, const std::string& path, std::vector<std::string>& subfolders) {
    struct stat st;
    if (fstat(fd, &st) != 0 || !changes_all_seen(fd)) return true;
    const FolderId id = id_of(st);
    auto known = by_id_.find(id);
    if (known == by_id_.end() && by_id_.size() >= max_watches_) return false;
    // The watch goes on the inode open here, whatever the path now leads to.
    // A folder watched already gets its own descriptor back: another one
    // means the table's entry was stale (the inode is a new folder's).
    const std::string by_descriptor = "/proc/self/fd/" + std::to_string(fd);
    const int descriptor = inotify_add_watch(inotify_.get(), by_descriptor.c_str(), kFolderEvents);
    if (descriptor < 0) return errno != ENOSPC;
    if (known != by_id_.end() && known->second.descriptor == descriptor) {
        known->second.path = path;
    } else {
        if (known != by_id_.end()) by_descriptor_.erase(known->second.descriptor);
        auto reused = by_descriptor_.find(descriptor);  // the kernel's, given to another inode since
        if (reused != by_descriptor_.end()) by_id_.erase(reused->second);
        const uint64_t at = now();  // before the listing below: a change after the watch is an event
        by_id_[id] = Watch{descriptor, path, at, at};
        ++changes_;
        by_descriptor_[descriptor] = id;
    }
    alignas(8) char buffer[32 * 1024];
    sdk::for_each_entry(fd, buffer, sizeof buffer, [&](const char* name, unsigned char type) {
        if (sdk::entry_type(fd, name, type) == DT_DIR) subfolders.emplace_back(name);
    });
    return true;
}

}  // namespace oms::landlock
