#include "paths.hpp"

#include <oms/path_resolver.hpp>

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace oms::policies {

std::optional<std::string> real_path(std::string_view path) {
    if (path.empty()) return std::nullopt;
    if (sdk::PathResolver* resolver = sdk::PathResolverScope::active()) return resolver->real_path(path);
    return fresh_real_path(path);
}

namespace {

std::optional<std::string> libc_real_path(const std::string& path) {
    char resolved[PATH_MAX];
    if (::realpath(path.c_str(), resolved) == nullptr) return std::nullopt;
    return std::string(resolved);
}

}  // namespace

std::optional<std::string> fresh_real_path(std::string_view path) {
    if (path.empty()) return std::nullopt;
    const std::string owned(path);
    // The kernel resolves it in one call, and /proc names what it found:
    // three calls where realpath(3) makes two for each component. Without
    // /proc (or for a name /proc cannot give plainly), realpath answers.
    const int fd = ::open(owned.c_str(), O_PATH | O_CLOEXEC);
    if (fd < 0) return std::nullopt;
    char found[PATH_MAX];
    const ssize_t size = ::readlink(("/proc/self/fd/" + std::to_string(fd)).c_str(), found, sizeof found);
    ::close(fd);
    if (size <= 0 || static_cast<size_t>(size) >= sizeof found || found[0] != '/') return libc_real_path(owned);
    std::string resolved(found, static_cast<size_t>(size));
    if (resolved.size() > 10 && resolved.compare(resolved.size() - 10, 10, " (deleted)") == 0)
        return libc_real_path(owned);
    return resolved;
}

bool path_exists(std::string_view path) {
    struct stat info {};
    return !path.empty() && ::lstat(std::string(path).c_str(), &info) == 0;
}

bool is_directory(std::string_view path) {
    struct stat info {};
    return !path.empty() && ::stat(std::string(path).c_str(), &info) == 0 && S_ISDIR(info.st_mode);
}

bool is_regular_file(std::string_view path) {
    struct stat info {};
    return !path.empty() && ::stat(std::string(path).c_str(), &info) == 0 && S_ISREG(info.st_mode);
}

bool is_executable_file(std::string_view path) {
    return is_regular_file(path) && ::access(std::string(path).c_str(), X_OK) == 0;
}

std::string join(std::string_view folder, std::string_view name) {
    std::string out(folder);
    if (out.empty() || out.back() != '/') out += '/';
    out += name;
    return out;
}

std::string_view base_name(std::string_view path) {
    const size_t slash = path.find_last_of('/');
    return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

std::vector<std::string_view> split_path_list(std::string_view list) {
    std::vector<std::string_view> entries;
    size_t start = 0;
    while (start <= list.size()) {
        const size_t colon = std::min(list.find(':', start), list.size());
        entries.push_back(list.substr(start, colon - start));
        start = colon + 1;
    }
    return entries;
}

std::string expand_home(std::string_view path, std::string_view home) {
    if (path == "~") return std::string(home);
    if (path.substr(0, 2) == "~/") return join(home, path.substr(2));
    return std::string(path);
}

}  // namespace oms::policies
