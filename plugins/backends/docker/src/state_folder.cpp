#include "state_folder.hpp"

#include <oms/sdk.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace oms::docker {

void own_folder(const std::string& path, mode_t mode) {
    if (mkdir(path.c_str(), mode) != 0 && errno != EEXIST)
        throw sdk::Error(OMS_ERR_FAILED, "docker: cannot create " + path + ": " + std::strerror(errno));
    struct stat st;
    if (lstat(path.c_str(), &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != geteuid())
        throw sdk::Error(OMS_ERR_FAILED, "docker: " + path + " is not a folder owned by this user; refusing to use it");
    chmod(path.c_str(), mode);
}

std::string docker_state_folder(const std::string& state_dir, const std::string& what) {
    if (state_dir.empty()) throw sdk::Error(OMS_ERR_FAILED, "docker: " + what + " needs oms's state folder");
    if (mkdir(state_dir.c_str(), 0700) != 0 && errno != EEXIST)
        throw sdk::Error(OMS_ERR_FAILED, "docker: cannot create " + state_dir + ": " + std::strerror(errno));
    const std::string folder = state_dir + "/docker";
    own_folder(folder, 0700);
    return folder;
}

void lend_to_container(const std::string& path, const std::string& user) {
    const uid_t uid = static_cast<uid_t>(std::strtoul(user.c_str(), nullptr, 10));
    const gid_t gid = static_cast<gid_t>(std::strtoul(user.substr(user.find(':') + 1).c_str(), nullptr, 10));
    if (mkdir(path.c_str(), 0700) != 0 && errno != EEXIST)
        throw sdk::Error(OMS_ERR_FAILED, "docker: cannot create " + path + ": " + std::strerror(errno));
    struct stat st;
    const bool ours = lstat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode) &&
                      (st.st_uid == geteuid() || (geteuid() == 0 && st.st_uid == uid));
    if (!ours)
        throw sdk::Error(OMS_ERR_FAILED,
                         "docker: " + path + " is not a folder of this user or the container's; refusing to use it");
    if (geteuid() == 0 && chown(path.c_str(), uid, gid) != 0)
        throw sdk::Error(OMS_ERR_FAILED, "docker: cannot lend " + path + " to " + user + ": " + std::strerror(errno));
    chmod(path.c_str(), geteuid() == 0 || uid == geteuid() ? 0700 : 0777);
}

}  // namespace oms::docker
