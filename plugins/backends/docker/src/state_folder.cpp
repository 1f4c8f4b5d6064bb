#include "state_folder.hpp"

#include <oms/sdk.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
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

}  // namespace oms::docker
