#include "private_home_files.hpp"

#include "container_view.hpp"

#include <oms/path.hpp>

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>

namespace oms::docker {

namespace {

// An environment value of the docker CLI holds them, hex-encoded (twice the
// size), under the kernel's 128 KiB limit for one such string.
constexpr size_t kMaxFileBytes = 32 * 1024;
constexpr size_t kMaxTotalBytes = 48 * 1024;
constexpr int kMaxDepth = 4;

struct Walk {
    const RunInputs& in;
    PrivateHomeFiles out;
    size_t total = 0;
};

bool read_all(int fd, size_t size, std::string& data) {
    data.assign(size, '\0');
    size_t have = 0;
    while (have < size) {
        ssize_t n = read(fd, data.data() + have, size - have);
        if (n <= 0) return false;
        have += static_cast<size_t>(n);
    }
    return true;
}

void add_file(Walk& walk, int folder, const char* name, const std::string& relative) {
    int fd = openat(folder, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        if (fd >= 0) close(fd);
        return;
    }
    const size_t size = static_cast<size_t>(st.st_size);
    home_seed::Entry entry{false, relative, ""};
    if (size > kMaxFileBytes || walk.total + size > kMaxTotalBytes)
        walk.out.notes.push_back("HOME/" + relative + " is not copied into the container's HOME (over 32 KiB)");
    else if (read_all(fd, size, entry.data))
        walk.total += size, walk.out.entries.push_back(std::move(entry));
    close(fd);
}

void add_link(Walk& walk, int folder, const char* name, const std::string& relative) {
    char target[4096];
    const ssize_t n = readlinkat(folder, name, target, sizeof target - 1);
    if (n <= 0) return;
    const std::string to(target, static_cast<size_t>(n));
    if (to[0] == '/' && visible_in_container(to, walk.in)) walk.out.entries.push_back({true, relative, to});
}

void walk_folder(Walk& walk, int folder, const std::string& prefix, int depth) {
    DIR* listing = fdopendir(folder);
    if (!listing) {
        close(folder);
        return;
    }
    while (dirent* item = readdir(listing)) {
        const std::string name = item->d_name;
        if (name == "." || name == "..") continue;
        const std::string relative = prefix.empty() ? name : prefix + "/" + name;
        struct stat st;
        if (fstatat(dirfd(listing), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
        if (S_ISLNK(st.st_mode)) add_link(walk, dirfd(listing), name.c_str(), relative);
        else if (S_ISREG(st.st_mode)) add_file(walk, dirfd(listing), name.c_str(), relative);
        else if (S_ISDIR(st.st_mode) && depth + 1 < kMaxDepth) {
            int sub = openat(dirfd(listing), name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
            if (sub >= 0) walk_folder(walk, sub, relative, depth + 1);
        }
    }
    closedir(listing);
}

}  // namespace

bool unreachable_toolchain_home(const std::string& entry, const RunInputs& in) {
    const size_t equals = entry.find('=');
    const std::string name = entry.substr(0, equals), value = entry.substr(equals + 1);
    if (name != "CARGO_HOME" && name != "RUSTUP_HOME") return false;
    return !in.home.empty() && in.home != "/" && sdk::path::is_inside(value, in.home) &&
           !visible_in_container(value, in);
}

PrivateHomeFiles private_home_files(const RunInputs& in) {
    Walk walk{in, {}, 0};
    if (in.private_home.empty()) return walk.out;
    int home = open(in.private_home.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (home >= 0) walk_folder(walk, home, "", 0);
    std::sort(walk.out.entries.begin(), walk.out.entries.end(),
              [](const home_seed::Entry& a, const home_seed::Entry& b) { return a.name < b.name; });
    return walk.out;
}

}  // namespace oms::docker
