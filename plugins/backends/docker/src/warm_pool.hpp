// Per-task warm containers: found through their runner's socket on the fast
// path, created (after removing orphans) on the slow path, removed when the
// task ends.
#pragma once
#include "container_plan.hpp"
#include "engine_client.hpp"
#include "run_inputs.hpp"
#include "settings.hpp"

#include <string>
#include <vector>

namespace oms::docker {

struct WarmContainer {
    std::string name;        // container name
    int runner = -1;         // connected runner socket, owned by the caller
};

class WarmPool {
public:
    // `runner_path` is the host path of oms-docker-runner; `state_dir` holds
    // the runner sockets (state_dir/docker/<container name>/runner.sock).
    WarmPool(const Settings& settings, EngineClient client, std::string cli_path, std::string runner_path,
             std::string state_dir);

    // The task's running container, with a connection to its runner; the
    // container is created first when it does not exist or does not answer.
    WarmContainer connect(const ContainerPlan& plan, const RunInputs& in);

    // Removes warm containers whose worktree no longer exists, and those of
    // `worktree` not named `keep` (another configuration) or not running.
    // Returns the ids removed.
    std::vector<std::string> sweep(const std::string& worktree, const std::string& keep);

    // Removes every warm container of `worktree`; returns how many there were.
    size_t end_task(const std::string& worktree);

private:
    const Settings& settings_;
    EngineClient client_;
    std::string cli_path_;
    std::string runner_path_;
    std::string state_dir_;

    std::string socket_path(const std::string& name) const;
    void prepare_socket_dir(const std::string& name, const std::string& user) const;
    void remove(const std::string& id, const std::string& name);
    // Runs `docker run -d`; false when the name is taken (another oms process was first).
    bool create_container(const ContainerPlan& plan, const RunInputs& in, const std::string& name,
                          const std::string& hash);
    int wait_for_runner(const std::string& name);
    // The runner must be the process that listened first in a new container:
    // a command in the container could replace the socket with its own
    // listener, which would then see (and could fake) later commands.
    std::string pid_file(const std::string& name) const;
    void remember_runner(const std::string& name, int connection) const;
    bool genuine_runner(const std::string& name, int connection) const;
};

}  // namespace oms::docker
