#include "folder_watches.hpp"

#include "dirent64.hpp"
#include "file_system_trust.hpp"

#include <errno.h>
#include <fcntl.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <sys/vfs.h>
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
bool changes_all_seen(int fd) { return changed_only_through_this_kernel(file_system_type(fd)); }

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

void FolderWatches::lose_all() { lost_at_ = now(); }

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
    if ((mask & IN_ISDIR) && (mask & IN_CREATE) && name) watch_tree(watch.path + "/" + name);
    // A folder moved: the paths recorded below it are stale (nothing is
    // vouched for by path, but new subfolders are opened by it).
    if (((mask & IN_ISDIR) && (mask & (IN_MOVED_FROM | IN_MOVED_TO))) || (mask & IN_MOVE_SELF))
        cover_again_ = true;
}

void FolderWatches::cover(const std::string& root, const FolderId& expected) {
    auto known = roots_.find(root);
    if (known != roots_.end() && known->second == expected) return;  // events keep it watched
    ScopedFd fd(open(root.c_str(), kFolderFlags));
    struct stat st;
    if (fd.get() < 0 || fstat(fd.get(), &st) != 0 || !(id_of(st) == expected)) return;
    roots_[root] = expected;
    watch_tree(root);
}

void FolderWatches::cover_again() {
    cover_again_ = false;
    for (const auto& [root, id] : roots_) {
        ScopedFd fd(open(root.c_str(), kFolderFlags));
        struct stat st;
        if (fd.get() >= 0 && fstat(fd.get(), &st) == 0 && id_of(st) == id) watch_tree(root);
    }
}

bool FolderWatches::unchanged_since(const FolderId& id, uint64_t moment) const {
    if (moment < lost_at_) return false;
    auto found = by_id_.find(id);
    return found != by_id_.end() && found->second.watched_at <= moment && found->second.changed_at <= moment;
}

// Breadth first, by path: a folder swapped for a link meanwhile is not
// followed at its last name (O_NOFOLLOW), and one reached through a link
// higher up is only watched in vain; a watch is trusted by what it is on
// (device, inode), never by the path it was reached through.
void FolderWatches::watch_tree(const std::string& top) {
    std::deque<std::string> pending{top};
    while (!pending.empty()) {
        const std::string path = std::move(pending.front());
        pending.pop_front();
        ScopedFd fd(open(path.c_str(), kFolderFlags));
        if (fd.get() >= 0 && !watch_one(fd.get(), path, pending)) return;
    }
}

// False when no more watches can be taken: the walk stops there.
bool FolderWatches::watch_one(int fd, const std::string& path, std::deque<std::string>& below) {
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
        by_descriptor_[descriptor] = id;
    }
    alignas(8) char buffer[32 * 1024];
    for_each_entry(fd, buffer, sizeof buffer, [&](const char* name, unsigned char type) {
        if (entry_type(fd, name, type) == DT_DIR) below.push_back(path + "/" + name);
    });
    return true;
}

}  // namespace oms::landlock
