#include "link_free_path.hpp"

#include <oms/sdk.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace oms::docker {

namespace {

struct Fd {
    int fd = -1;
    explicit Fd(int f) : fd(f) {}
    Fd(const Fd&) = delete;
    Fd& operator=(const Fd&) = delete;
    ~Fd() {
        if (fd >= 0) close(fd);
    }
};

[[noreturn]] void refuse_link(const std::string& what, const std::string& path, const std::string& link) {
    throw sdk::Error(OMS_ERR_UNSUPPORTED, "docker: " + what + " " + path + (link == path ? " is" : " lies below " + link + ", which is") +
                                              " a symbolic link; oms never mounts through a link a command could have made "
                                              "(remove the link to run)");
}

}  // namespace

PathKind link_free_kind(const std::string& root, const std::string& path, const std::string& what) {
    return link_free_identity(root, path, what).kind;
}

PathIdentity link_free_identity(const std::string& root, const std::string& path, const std::string& what) {
    const std::string below = path.size() > root.size() ? path.substr(root.size() + (root == "/" ? 0 : 1)) : "";
    Fd current(open(root.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
    if (current.fd < 0)
        throw sdk::Error(OMS_ERR_FAILED, "docker: cannot open " + root + ": " + std::strerror(errno));
    std::string walked = root == "/" ? "" : root;
    size_t start = 0;
    while (start < below.size()) {
        size_t end = below.find('/', start);
        if (end == std::string::npos) end = below.size();
        const std::string name = below.substr(start, end - start);
        start = end + 1;
        if (name.empty() || name == ".") continue;
        walked += "/" + name;
        if (name == "..")  // never climbs out of the root
            throw sdk::Error(OMS_ERR_UNSUPPORTED, "docker: " + what + " " + path + " contains '..'; refusing to run");
        Fd next(openat(current.fd, name.c_str(), O_PATH | O_NOFOLLOW | O_CLOEXEC));
        if (next.fd < 0) {
            if (errno == ENOENT || errno == ENOTDIR) return PathIdentity{};
            throw sdk::Error(OMS_ERR_FAILED, "docker: cannot examine " + walked + " (for " + what + " " + path +
                                                 "): " + std::strerror(errno) + "; refusing to run");
        }
        struct stat st;
        if (fstat(next.fd, &st) != 0)
            throw sdk::Error(OMS_ERR_FAILED, "docker: cannot examine " + walked + ": " + std::strerror(errno));
        if (S_ISLNK(st.st_mode)) refuse_link(what, path, walked);
        if (start < below.size() && !S_ISDIR(st.st_mode)) return PathIdentity{};
        if (start >= below.size())
            return PathIdentity{S_ISDIR(st.st_mode) ? PathKind::Directory : PathKind::File,
                                static_cast<unsigned long long>(st.st_dev), static_cast<unsigned long long>(st.st_ino)};
        std::swap(current.fd, next.fd);
    }
    struct stat st;  // the root itself
    if (fstat(current.fd, &st) != 0)
        throw sdk::Error(OMS_ERR_FAILED, "docker: cannot examine " + root + ": " + std::strerror(errno));
    return PathIdentity{PathKind::Directory, static_cast<unsigned long long>(st.st_dev),
                        static_cast<unsigned long long>(st.st_ino)};
}

}  // namespace oms::docker
