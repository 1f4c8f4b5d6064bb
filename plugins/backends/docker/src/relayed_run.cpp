#include "relayed_run.hpp"

#include "state_folder.hpp"
#include "tree_removal.hpp"

#include "../runner/runner_protocol.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace oms::docker {

RelayedRun::RelayedRun(std::unique_ptr<RunCompanion> companion, std::string owned_dir, std::string owned_lock)
    : companion_(std::move(companion)), owned_dir_(std::move(owned_dir)), owned_lock_(std::move(owned_lock)) {}

RelayedRun::~RelayedRun() {
    inner_.reset();  // the container first: nothing may connect after the companion goes
    companion_.reset();
    if (!owned_dir_.empty()) remove_tree(owned_dir_);  // with whatever the container left in it
    if (!owned_lock_.empty()) unlink(owned_lock_.c_str());
}

std::string make_one_shot_relay_dir(const std::string& state_dir, const std::string& name) {
    const std::string dir = docker_state_folder(state_dir, "the Surfnet relay") + "/" + name + ".relay";
    own_folder(dir, 0711);
    return dir;
}

}  // namespace oms::docker
