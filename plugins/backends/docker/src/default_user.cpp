#include "default_user.hpp"

#include <oms/sdk.hpp>

#include <sys/stat.h>

namespace oms::docker {

std::string default_user_for(const std::string& worktree, oms_status failure) {
    struct stat info {};
    if (stat(worktree.c_str(), &info) != 0 || info.st_uid == 0)
        throw sdk::Error(failure,
                         "docker: the worktree " + worktree + " belongs to root, and a command never runs as root in "
                         "the container, so as any other user it could not write there. Nothing ran. Set "
                         "[plugin.docker] user = \"UID:GID\" to the user who should own the work (and chown -R "
                         "UID:GID the worktree), or user = \"65534:65534\" to run commands that only read it.");
    const auto gid = info.st_gid != 0 ? info.st_gid : info.st_uid;
    return std::to_string(info.st_uid) + ":" + std::to_string(gid);
}

}  // namespace oms::docker
