#include "oms/core/config_file_reader.hpp"

#include "oms/core/scoped_fd.hpp"

#include <oms/path.hpp>

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>

#include <cstring>

namespace oms::core {

namespace {

std::string name_of(const std::string& path) {
    const size_t slash = path.find_last_of('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

ConfigFileText problem(const std::string& why) { return ConfigFileText{true, "", why}; }

ConfigFileText read_all(int fd) {
    struct stat info {};
    if (fstat(fd, &info) != 0) return problem(std::string("cannot inspect it: ") + strerror(errno));
    if (!S_ISREG(info.st_mode)) return problem("not a regular file (a FIFO, device or folder is never read)");
    if (info.st_size > kConfigFileSizeLimit)
        return problem("larger than " + std::to_string(kConfigFileSizeLimit) + " bytes");
    ConfigFileText out{true, "", std::nullopt};
    char buffer[16384];
    for (ssize_t n; (n = read(fd, buffer, sizeof buffer)) != 0;) {
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return problem(std::string("cannot read it: ") + strerror(errno));
        out.text.append(buffer, static_cast<size_t>(n));
        if (static_cast<long>(out.text.size()) > kConfigFileSizeLimit)
            return problem("larger than " + std::to_string(kConfigFileSizeLimit) + " bytes");
    }
    return out;
}

}  // namespace

ConfigFileText read_config_file(const std::string& path, bool no_links) {
    const int follow = no_links ? O_NOFOLLOW : 0;
    // The folder is opened first (without following a link when asked), so
    // the file is looked up in the folder that was checked.
    ScopedFd folder(open(sdk::path::parent_of(path).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC | follow));
    if (folder.get() < 0) {
        if (errno == ENOENT) return {};
        if (no_links && (errno == ELOOP || errno == ENOTDIR))
            return problem("its folder " + sdk::path::parent_of(path) + " is a symbolic link or not a folder");
        return problem("cannot open its folder: " + std::string(strerror(errno)));
    }
    const std::string name = name_of(path);
    struct stat info {};
    if (fstatat(folder.get(), name.c_str(), &info, no_links ? AT_SYMLINK_NOFOLLOW : 0) != 0)
        return errno == ENOENT ? ConfigFileText{} : problem(std::string("cannot inspect it: ") + strerror(errno));
    if (S_ISLNK(info.st_mode)) return problem("a symbolic link (a worktree's config file is never followed)");
    if (!S_ISREG(info.st_mode)) return problem("not a regular file (a FIFO, device or folder is never read)");
    ScopedFd file(openat(folder.get(), name.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC | follow));
    if (file.get() < 0) return problem(std::string("cannot open it: ") + strerror(errno));
    return read_all(file.get());
}

}  // namespace oms::core
