#include "oms/core/kept_npm_logs.hpp"

#include "oms/core/scoped_fd.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

namespace oms::core {

namespace {

constexpr const char* kKeptFolder = "npm-logs";

// A folder below `at`, opened without following a link; -1 when it is not one.
int open_folder_at(int at, const char* name) {
    return ::openat(at, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
}

// npm's names are timestamps ("2026-12-06T10_40_01_123Z-debug-0.log"): a
// name of letters, digits, '-', '_' and '.', ending in ".log", is kept as it is.
bool plain_log_name(const std::string& name) {
    if (name.size() < 5 || name.size() > 128 || name[0] == '.') return false;
    if (name.compare(name.size() - 4, 4, ".log") != 0) return false;
    return std::all_of(name.begin(), name.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_' ||
               c == '.';
    });
}

std::vector<std::string> log_names_in(int folder) {
    std::vector<std::string> names;
    const int listing_fd = ::dup(folder);
    DIR* listing = listing_fd >= 0 ? ::fdopendir(listing_fd) : nullptr;
    if (!listing) {
        if (listing_fd >= 0) ::close(listing_fd);
        return names;
    }
    while (const dirent* entry = ::readdir(listing))
        if (plain_log_name(entry->d_name)) names.push_back(entry->d_name);
    ::closedir(listing);
    std::sort(names.begin(), names.end());
    return names;
}

// Copies at most kKeptNpmLogBytes of a regular file; false when `name` is
// not one (a link, a folder, a pipe) or the copy cannot be made.
bool copy_log(int from_folder, int to_folder, const std::string& name) {
    ScopedFd from(::openat(from_folder, name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
    struct stat st;
    if (from.get() < 0 || ::fstat(from.get(), &st) != 0 || !S_ISREG(st.st_mode)) return false;
    ScopedFd to(::openat(to_folder, name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
    if (to.get() < 0) return false;
    char buffer[65536];
    size_t copied = 0;
    while (copied < kKeptNpmLogBytes) {
        const ssize_t got = ::read(from.get(), buffer, std::min(sizeof buffer, kKeptNpmLogBytes - copied));
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) break;
        if (::write(to.get(), buffer, static_cast<size_t>(got)) != got) return false;
        copied += static_cast<size_t>(got);
    }
    return true;
}

// Removes the oldest logs beyond kKeptNpmLogsInAll.
void prune(int folder) {
    const std::vector<std::string> names = log_names_in(folder);
    for (size_t i = 0; i + kKeptNpmLogsInAll < names.size(); ++i) ::unlinkat(folder, names[i].c_str(), 0);
}

}  // namespace

std::vector<std::string> keep_npm_logs(int run_root_fd, const std::string& state_dir) {
    std::vector<std::string> kept;
    ScopedFd home(open_folder_at(run_root_fd, "home"));
    ScopedFd npm(home.get() >= 0 ? open_folder_at(home.get(), ".npm") : -1);
    ScopedFd logs(npm.get() >= 0 ? open_folder_at(npm.get(), "_logs") : -1);
    if (logs.get() < 0) return kept;
    std::vector<std::string> names = log_names_in(logs.get());
    if (names.empty()) return kept;
    if (names.size() > kKeptNpmLogsPerRun) names.erase(names.begin(), names.end() - kKeptNpmLogsPerRun);
    const std::string folder = state_dir + "/" + kKeptFolder;
    ::mkdir(folder.c_str(), 0700);
    ScopedFd to(::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (to.get() < 0) return kept;
    for (const std::string& name : names)
        if (copy_log(logs.get(), to.get(), name)) kept.push_back(folder + "/" + name);
    prune(to.get());
    return kept;
}

std::string kept_npm_logs_line(const std::vector<std::string>& kept) {
    if (kept.empty()) return "";
    std::string paths;
    for (const std::string& path : kept) paths += (paths.empty() ? "" : ", ") + path;
    return "oms: npm's log of this run is kept at " + paths +
           " (the path npm printed lies in the run's private HOME, removed with the run)";
}

}  // namespace oms::core
