// A command run by oms-docker-runner inside the task's warm container: the
// request (with the command's descriptors) goes over the runner's unix
// socket, signals follow on the same connection, the exit status comes back.
// Output never passes through oms: the command writes to its descriptors.
#pragma once
#include <oms/sdk.hpp>

#include <string>
#include <vector>

namespace oms::docker {

// Connects to a runner socket; -1 when nothing listens there (yet).
int connect_runner(const std::string& socket_path);

// The request payload: cwd, argc, argv..., envc, env..., NUL-terminated.
std::string runner_payload(const std::string& cwd, const std::vector<std::string>& argv,
                           const std::vector<std::string>& env);

class RunnerRun : public sdk::Run {
public:
    // Takes ownership of `connection` (from connect_runner) and sends the request.
    RunnerRun(int connection, const std::string& cwd, const std::vector<std::string>& argv,
              const std::vector<std::string>& env, oms_stdio stdio);
    ~RunnerRun() override;  // closing the connection kills a command still running
    void signal(int signal_number) override;
    int wait() override;

private:
    int connection_;
};

}  // namespace oms::docker
