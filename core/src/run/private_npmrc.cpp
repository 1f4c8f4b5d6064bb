#include "oms/core/private_npmrc.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>

namespace oms::core {

void write_private_npmrc(const std::string& private_home) {
    const std::string target = private_home + "/.npmrc";
    const size_t size = std::strlen(kPrivateNpmrc);
    int fd = ::open(target.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    bool written = fd >= 0 && ::write(fd, kPrivateNpmrc, size) == static_cast<ssize_t>(size);
    if (fd >= 0) ::close(fd);
    if (!written) std::fprintf(stderr, "oms: warning: cannot write %s; npm retries for a minute\n", target.c_str());
}

}  // namespace oms::core
