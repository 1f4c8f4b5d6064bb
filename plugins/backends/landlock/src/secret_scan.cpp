#include "secret_scan.hpp"
#include "dirent64.hpp"

#include "path_utils.hpp"
#include "scan_match.hpp"
#include "scoped_fd.hpp"
#include "shared_walk.hpp"

#include <oms/sdk.hpp>

#include <dirent.h>
#include <sys/syscall.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <memory>
#include <set>
#include <utility>
#include <vector>

namespace oms::landlock {

namespace {

// Walks with openat() relative to the parent's descriptor and raw getdents64
// into one reused buffer: no path resolution per folder, no allocation per
// entry except for the path kept in `path_` (appended and cut back).
class Walker {
public:
    Walker(const ScanRequest& request, std::set<std::string>& found, char* buffer)
        : match_(request), found_(found), buffer_(buffer) {}

    void walk_root(const std::string& root) {
        int fd = open(root.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0) return;
        path_ = root;
        walk(fd, 0);
    }

private:
    const ScanMatcher match_;
    std::set<std::string>& found_;
    std::string path_;
    char* buffer_;  // kScanBufferSize bytes, 8-aligned

    // Takes ownership of `dir_fd` (closed on every way out, a throw included).
    void walk(int dir_fd, int depth) {
        ScopedFd closer(dir_fd);
        if (depth > kMaxScanDepth) too_deep(path_);
        if (match_.skipped(path_)) return;
        std::vector<std::pair<std::string, unsigned char>> entries;
        for_each_entry(dir_fd, buffer_, kScanBufferSize,
                       [&](const char* name, unsigned char type) { entries.emplace_back(name, type); });
        for (auto& [name, type] : entries) visit(dir_fd, name, type, depth);
    }

    void visit(int dir_fd, const std::string& name, unsigned char type, int depth) {
        const size_t length = path_.size();
        path_ += '/';
        path_ += name;
        type = entry_type(dir_fd, name.c_str(), type);
        if (type == DT_DIR) {
            int child = openat(dir_fd, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
            if (child >= 0) walk(child, depth + 1);
        } else if (type != DT_UNKNOWN && match_.matches(path_)) {
            if (type != DT_LNK || kind_of(path_) == Kind::file) found_.insert(path_);
        }
        path_.resize(length);
    }
};

}  // namespace

void too_deep(const std::string& folder) {
    throw oms::sdk::Error(OMS_ERR_FAILED, "landlock: " + folder + " is nested more than " +
                                              std::to_string(kMaxScanDepth) +
                                              " folders deep; keypair files there could not be looked for "
                                              "(the command did not run)");
}

std::vector<std::string> find_secret_files(const ScanRequest& request) {
    std::set<std::string> found;
    if (request.suffixes.empty()) return {};
    // One buffer for every folder of every root (heap: not on the caller's
    // stack; once: allocating it per root made the heap grow and shrink).
    auto buffer = std::make_unique<uint64_t[]>(kScanBufferSize / sizeof(uint64_t));
    char* bytes = reinterpret_cast<char*>(buffer.get());
    Walker walker(request, found, bytes);
    for (const auto& root : request.roots) {
        if (kind_of(root) == Kind::folder) {
            if (!walk_shared(request, root, found, bytes)) walker.walk_root(root);
        } else if (kind_of(root) == Kind::file && ScanMatcher(request).matches(root)) {
            found.insert(root);
        }
    }
    return std::vector<std::string>(found.begin(), found.end());
}

}  // namespace oms::landlock
