// A command in its own container: `docker run --rm` through the CLI, which
// passes the exit status through and proxies signals to the container.
#pragma once
#include "engine_client.hpp"
#include "one_shot_lifeline.hpp"
#include "resolver_reports.hpp"

#include <oms/sdk.hpp>

#include <sys/types.h>

#include <memory>
#include <string>
#include <vector>

namespace oms::docker {

class OneShotRun : public sdk::Run {
public:
    // Starts `argv` (the docker CLI first) with `cli_env`; `name` is the
    // container's, tied to this run's life by `lifeline`. `reports` (may be
    // null) takes the container resolver's refusals until the run is released.
    OneShotRun(EngineClient client, std::string name, const std::vector<std::string>& argv,
               const std::vector<std::string>& cli_env, oms_stdio stdio, std::unique_ptr<OneShotLifeline> lifeline,
               std::unique_ptr<ResolverReports> reports = nullptr);
    ~OneShotRun() override;
    void signal(int signal_number) override;
    int wait() override;

private:
    EngineClient client_;
    std::string name_;
    pid_t pid_ = -1;
    bool waited_ = false;
    std::unique_ptr<ResolverReports> reports_;   // after the lifeline: the container has ended, all it sent is queued
    std::unique_ptr<OneShotLifeline> lifeline_;  // after the CLI is gone, so the container's end is the run's
};

}  // namespace oms::docker
