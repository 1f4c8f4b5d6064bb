#include "default_user.hpp"

#include "settings.hpp"

#include <sys/stat.h>

namespace oms::docker {

std::string default_user_for(const std::string& worktree) {
    struct stat info {};
    if (stat(worktree.c_str(), &info) != 0 || info.st_uid == 0) return kDefaultUser;
    const auto gid = info.st_gid != 0 ? info.st_gid : info.st_uid;
    return std::to_string(info.st_uid) + ":" + std::to_string(gid);
}

}  // namespace oms::docker
