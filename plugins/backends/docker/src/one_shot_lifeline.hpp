// What ties a one-shot container to the oms that started it. oms listens on
// life.sock in the run's socket folder (bound into the container at
// /.oms/sock) and never accepts: the container's runner (its PID 1, which no
// process inside can stop or kill) connects before the command starts and
// ends the container the moment that connection breaks, which the kernel does
// when oms's listener closes, for whatever reason oms ended (kill -9
// included; the docker CLI it leaves behind changes nothing). The daemon
// removes the ended container (--rm).
//
// As a second line, each one-shot container is labelled with its task's
// worktree and its run's name, and oms holds the run's lock file while the
// run lives: the next one-shot run of the task removes the task's
// containers whose lock is free, `oms task end` removes all of them.
#pragma once
#include "engine_client.hpp"

#include <cstddef>
#include <string>
#include <vector>

namespace oms::docker {

inline constexpr const char* kRunLabel = "oms.run";  // the one-shot run's name

class OneShotLifeline {
public:
    // Takes the run's lock, makes its socket folder and listens in it.
    // Throws sdk::Error(OMS_ERR_FAILED).
    OneShotLifeline(const std::string& state_dir, const std::string& name);
    // Closes the listener (the container ends), removes the folder and the lock.
    ~OneShotLifeline();
    OneShotLifeline(const OneShotLifeline&) = delete;
    OneShotLifeline& operator=(const OneShotLifeline&) = delete;
    const std::string& folder() const { return folder_; }

private:
    std::string folder_, lock_path_;
    int lock_fd_ = -1, listener_ = -1;
};

// The labels of a one-shot container of `worktree`'s task.
std::vector<std::string> one_shot_labels(const std::string& worktree, const std::string& name);

// Removes `worktree`'s one-shot containers: those whose run's lock is free
// (their oms is gone), or all of them with `all`. Returns how many.
size_t remove_one_shot_leftovers(const EngineClient& client, const std::string& state_dir,
                                 const std::string& worktree, bool all);

// Removes the publish folders (state_dir/docker/NAME.pub, host_publisher.hpp)
// of one-shot runs whose oms is gone: left when oms was killed, or when a
// command still wrote there while its container went. Any task's: the
// folder names its run, not its task. Called with the leftovers above.
void remove_left_publish_folders(const std::string& state_dir);

}  // namespace oms::docker
