#include "one_shot_lifeline.hpp"

#include "container_plan.hpp"
#include "daemon.hpp"
#include "private_socket.hpp"
#include "relayed_run.hpp"
#include "state_folder.hpp"
#include "tree_removal.hpp"
#include "warm_identity.hpp"

#include <oms/sdk.hpp>

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace oms::docker {

namespace {

std::string lock_path_of(const std::string& state_dir, const std::string& name) {
    return state_dir + "/docker/" + name + ".run-lock";
}

// True when no live oms holds the run's lock (or the lock file is gone).
bool run_gone(const std::string& state_dir, const std::string& name) {
    if (name.empty() || name.find('/') != std::string::npos) return false;  // not one of ours
    int fd = open(lock_path_of(state_dir, name).c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) return errno == ENOENT;
    const bool free = flock(fd, LOCK_EX | LOCK_NB) == 0;
    close(fd);
    return free;
}

}  // namespace

OneShotLifeline::OneShotLifeline(const std::string& state_dir, const std::string& name) {
    docker_state_folder(state_dir, "a one-shot run");
    lock_path_ = lock_path_of(state_dir, name);
    // Taken before the container exists, so a later run never sees it unlocked while this oms lives.
    lock_fd_ = open(lock_path_.c_str(), O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (lock_fd_ < 0 || flock(lock_fd_, LOCK_EX | LOCK_NB) != 0) {
        const std::string why = std::strerror(errno);
        if (lock_fd_ >= 0) close(lock_fd_);
        throw sdk::Error(OMS_ERR_FAILED, "docker: cannot take the run's lock " + lock_path_ + ": " + why);
    }
    try {
        folder_ = make_one_shot_relay_dir(state_dir, name);
        listener_ = listen_privately(folder_ + "/" + kLifelineSocketName, 0666, "the one-shot container's lifeline");
    } catch (...) {
        if (!folder_.empty()) remove_tree(folder_);
        unlink(lock_path_.c_str());
        close(lock_fd_);
        throw;
    }
}

OneShotLifeline::~OneShotLifeline() {
    close(listener_);
    remove_tree(folder_);
    unlink(lock_path_.c_str());  // before the lock goes: a later run finds no file, or a free lock
    close(lock_fd_);
}

std::vector<std::string> one_shot_labels(const std::string& worktree, const std::string& name) {
    return {std::string(kManagedLabel) + "=one-shot", std::string(kWorktreeLabel) + "=" + worktree,
            std::string(kRunLabel) + "=" + name};
}

size_t remove_one_shot_leftovers(const EngineClient& client, const std::string& state_dir,
                                 const std::string& worktree, bool all) {
    size_t removed = 0;
    for (const ContainerSummary& c : containers_with_label(client, std::string(kWorktreeLabel) + "=" + worktree)) {
        auto managed = c.labels.find(kManagedLabel);
        if (managed == c.labels.end() || managed->second != "one-shot") continue;
        auto run = c.labels.find(kRunLabel);
        if (!all && !run_gone(state_dir, run == c.labels.end() ? "" : run->second)) continue;
        remove_container(client, c.id);
        ++removed;
    }
    remove_left_publish_folders(state_dir);
    return removed;
}

void remove_left_publish_folders(const std::string& state_dir) {
    const std::string docker = state_dir + "/docker";
    DIR* listing = opendir(docker.c_str());
    if (!listing) return;
    std::vector<std::string> left;
    const std::string suffix = ".pub";
    while (dirent* e = readdir(listing)) {
        const std::string name = e->d_name;
        if (name.size() <= suffix.size() || name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0)
            continue;
        if (run_gone(state_dir, name.substr(0, name.size() - suffix.size()))) left.push_back(docker + "/" + name);
    }
    closedir(listing);
    for (const std::string& folder : left) remove_tree(folder);
}

}  // namespace oms::docker
