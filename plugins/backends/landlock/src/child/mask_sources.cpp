#include "mask_sources.hpp"
#include "dns_responder.hpp"

#include <oms/sdk.hpp>

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

namespace oms::landlock {

namespace {

[[noreturn]] void fail(const std::string& what) {
    throw oms::sdk::Error(OMS_ERR_FAILED, "landlock: cannot create " + what + ": " + strerror(errno));
}

}  // namespace

MaskSources::MaskSources(const std::string& parent, uint32_t resolver) {
    std::string pattern = parent + "/oms-landlock-XXXXXX";
    if (!mkdtemp(pattern.data())) fail(parent + "/oms-landlock-*");
    base_ = pattern;
    folder_path_ = base_ + "/empty-folder";
    file_path_ = base_ + "/empty-file";
    // O_EXCL + O_NOFOLLOW: the descriptor is the file made here, nothing else.
    int file_fd = open(file_path_.c_str(), O_RDONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0444);
    if (file_fd < 0) fail(file_path_);
    struct stat st;
    fstat(file_fd, &st);
    file_id_ = Identity{st.st_dev, st.st_ino};
    close(file_fd);
    resolv_path_ = base_ + "/resolv.conf";
    int resolv_fd = open(resolv_path_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0444);
    if (resolv_fd < 0) fail(resolv_path_);
    char text[sizeof kSandboxResolvConf + 16];
    if (!dns_responder::resolv_conf_naming(resolver, text, sizeof text)) fail(resolv_path_);
    const size_t size = strlen(text);
    if (write(resolv_fd, text, size) != static_cast<ssize_t>(size)) fail(resolv_path_);
    fstat(resolv_fd, &st);
    resolv_id_ = Identity{st.st_dev, st.st_ino};
    close(resolv_fd);
    if (mkdir(folder_path_.c_str(), 0555) != 0) fail(folder_path_);
    if (lstat(folder_path_.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) fail(folder_path_);
    folder_id_ = Identity{st.st_dev, st.st_ino};
}

MaskSources::~MaskSources() {
    unlink(file_path_.c_str());
    unlink(resolv_path_.c_str());
    rmdir(folder_path_.c_str());
    rmdir(base_.c_str());
}

}  // namespace oms::landlock
