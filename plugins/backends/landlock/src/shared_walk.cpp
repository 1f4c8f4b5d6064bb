#include "shared_walk.hpp"

#include "dirent64.hpp"
#include "path_utils.hpp"

#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <condition_variable>
#include <memory>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

#ifndef SYS_openat2
#define SYS_openat2 437
#endif

namespace oms::landlock {

namespace {

constexpr size_t kFoldersBeforeHelper = 48;  // a tree this big gets the second thread
constexpr int kMaxDepth = 64;                // as the plain walk

struct PendingFolder {
    std::string relative;  // "" = the root
    int depth = 0;
};

bool ends_with(const std::string& text, const std::string& suffix) {
    return text.size() >= suffix.size() && text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

int open_beneath(int root, const std::string& relative) {
    if (relative.empty()) return fcntl(root, F_DUPFD_CLOEXEC, 0);
    open_how how{};
    how.flags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;
    how.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
    return static_cast<int>(syscall(SYS_openat2, root, relative.c_str(), &how, sizeof how));
}

class SharedWalk {
public:
    SharedWalk(const ScanRequest& request, std::string root, int root_fd)
        : request_(request), root_(std::move(root)), root_fd_(root_fd) {
        pending_.push_back({});
    }

    void run(std::set<std::string>& found, char* buffer) {
        work(buffer);
        if (helper_.joinable()) helper_.join();
        found.insert(found_.begin(), found_.end());
    }

private:
    const ScanRequest& request_;
    const std::string root_;
    const int root_fd_;
    std::mutex mutex_;
    std::condition_variable changed_;
    std::vector<PendingFolder> pending_;  // taken from the back: depth first, so the list stays short
    size_t busy_ = 0, folders_read_ = 0;
    std::set<std::string> found_;
    std::thread helper_;

    bool skipped(const std::string& path) const {
        for (const auto& s : request_.skip)
            if (path == s) return true;
        return false;
    }

    bool matches(const std::string& path) const {
        for (const auto& suffix : request_.suffixes)
            if (ends_with(path, suffix)) return true;
        return false;
    }

    // No second thread (say, a process limit): this one does it all.
    void start_helper() {
        try {
            helper_ = std::thread([this] {
                auto own = std::make_unique<uint64_t[]>(kScanBufferSize / sizeof(uint64_t));
                work(reinterpret_cast<char*>(own.get()));
            });
        } catch (const std::system_error&) {
        }
    }

    // Takes folders until none is left and nobody can add one.
    void work(char* buffer) {
        std::unique_lock<std::mutex> lock(mutex_);
        for (;;) {
            changed_.wait(lock, [this] { return !pending_.empty() || busy_ == 0; });
            if (pending_.empty()) break;
            PendingFolder folder = std::move(pending_.back());
            pending_.pop_back();
            ++busy_;
            lock.unlock();
            std::vector<PendingFolder> subfolders;
            std::vector<std::string> found;
            read_folder(folder, buffer, subfolders, found);
            lock.lock();
            for (auto& s : subfolders) pending_.push_back(std::move(s));
            found_.insert(found.begin(), found.end());
            --busy_;
            ++folders_read_;
            if (!helper_.joinable() && folders_read_ >= kFoldersBeforeHelper && pending_.size() >= 2) start_helper();
            changed_.notify_all();
        }
        changed_.notify_all();
    }

    void read_folder(const PendingFolder& folder, char* buffer, std::vector<PendingFolder>& subfolders,
                     std::vector<std::string>& found) const {
        const std::string path = folder.relative.empty() ? root_ : root_ + "/" + folder.relative;
        if (folder.depth > kMaxDepth || skipped(path)) return;
        int fd = open_beneath(root_fd_, folder.relative);
        if (fd < 0) return;
        for_each_entry(fd, buffer, kScanBufferSize, [&](const char* name, unsigned char type) {
            type = entry_type(fd, name, type);
            const std::string child = path + "/" + name;
            if (type == DT_DIR) {
                subfolders.push_back({folder.relative.empty() ? name : folder.relative + "/" + name, folder.depth + 1});
            } else if (type != DT_UNKNOWN && matches(child)) {
                if (type != DT_LNK || kind_of(child) == Kind::file) found.push_back(child);
            }
        });
        close(fd);
    }
};

}  // namespace

bool walk_shared(const ScanRequest& request, const std::string& root, std::set<std::string>& found, char* buffer) {
    int root_fd = open(root.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (root_fd < 0) return true;  // as the plain walk: nothing to find
    // One probe tells whether openat2 works here (kernel 5.6+, not refused by
    // a seccomp filter of a container oms itself runs in).
    open_how how{};
    how.flags = O_RDONLY | O_DIRECTORY | O_CLOEXEC;
    how.resolve = RESOLVE_BENEATH;
    int probe = static_cast<int>(syscall(SYS_openat2, root_fd, ".", &how, sizeof how));
    if (probe < 0) {
        close(root_fd);
        return false;
    }
    close(probe);
    SharedWalk(request, root, root_fd).run(found, buffer);
    close(root_fd);
    return true;
}

}  // namespace oms::landlock
