#include "relayed_run.hpp"

#include "../runner/runner_protocol.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace oms::docker {

namespace {

void make_folder(const std::string& path, mode_t mode) {
    if (mkdir(path.c_str(), mode) != 0 && errno != EEXIST)
        throw sdk::Error(OMS_ERR_FAILED, "docker: cannot create " + path + ": " + std::strerror(errno));
    struct stat st;
    if (lstat(path.c_str(), &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != geteuid())
        throw sdk::Error(OMS_ERR_FAILED, "docker: " + path + " is not a folder owned by this user; refusing to use it");
    chmod(path.c_str(), mode);
}

}  // namespace

RelayedRun::RelayedRun(std::unique_ptr<HostRelay> relay, std::string owned_dir, std::string owned_lock)
    : relay_(std::move(relay)), owned_dir_(std::move(owned_dir)), owned_lock_(std::move(owned_lock)) {}

RelayedRun::~RelayedRun() {
    inner_.reset();  // the container first: nothing may connect after the relay goes
    relay_.reset();
    if (!owned_dir_.empty()) {
        unlink((owned_dir_ + "/" + runner::kRelaySocketName).c_str());
        rmdir(owned_dir_.c_str());
    }
    if (!owned_lock_.empty()) unlink(owned_lock_.c_str());
}

std::string make_one_shot_relay_dir(const std::string& state_dir, const std::string& name) {
    if (state_dir.empty()) throw sdk::Error(OMS_ERR_FAILED, "docker: the Surfnet relay needs oms's state folder");
    if (mkdir(state_dir.c_str(), 0700) != 0 && errno != EEXIST)
        throw sdk::Error(OMS_ERR_FAILED, "docker: cannot create " + state_dir + ": " + std::strerror(errno));
    make_folder(state_dir + "/docker", 0700);
    const std::string dir = state_dir + "/docker/" + name + ".relay";
    make_folder(dir, 0711);
    return dir;
}

}  // namespace oms::docker
