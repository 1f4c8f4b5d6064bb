#include "private_socket.hpp"

#include <oms/sdk.hpp>

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace oms::docker {

int bind_privately(const std::string& path, int type, mode_t mode, const std::string& what) {
    const size_t slash = path.rfind('/');
    const std::string folder = path.substr(0, slash), name = path.substr(slash + 1);
    std::string private_dir = folder.substr(0, folder.rfind('/')) + "/.socket-XXXXXX";
    std::string made;
    int fd = -1;
    auto fail = [&](const std::string& step) {
        const std::string why = std::strerror(errno);
        if (fd >= 0) close(fd);
        if (!made.empty()) unlink(made.c_str()), rmdir(private_dir.c_str());
        throw sdk::Error(OMS_ERR_FAILED, "docker: cannot serve " + what + " at " + path + " (" + step + "): " + why);
    };
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    if (private_dir.size() + 1 + name.size() >= sizeof address.sun_path || path.size() >= sizeof address.sun_path) {
        errno = ENAMETOOLONG;
        fail("path length");
    }
    if (!mkdtemp(private_dir.data())) fail("private folder");  // 0700, made afresh
    made = private_dir + "/" + name;
    std::memcpy(address.sun_path, made.c_str(), made.size() + 1);
    fd = socket(AF_UNIX, type | SOCK_CLOEXEC, 0);
    if (fd < 0 || bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) fail("bind");
    // No one else can write the private folder: this path cannot be swapped.
    if (chmod(made.c_str(), mode) != 0) fail("mode");
    if (type == SOCK_STREAM && listen(fd, 64) != 0) fail("listen");
    if (rename(made.c_str(), path.c_str()) != 0) fail("rename");
    rmdir(private_dir.c_str());
    return fd;
}

int listen_privately(const std::string& path, mode_t mode, const std::string& what) {
    return bind_privately(path, SOCK_STREAM, mode, what);
}

}  // namespace oms::docker
