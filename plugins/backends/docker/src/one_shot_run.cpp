#include "one_shot_run.hpp"

#include "cli_process.hpp"
#include "daemon.hpp"

#include <signal.h>

namespace oms::docker {

OneShotRun::OneShotRun(EngineClient client, std::string name, const std::vector<std::string>& argv,
                       const std::vector<std::string>& cli_env, oms_stdio stdio,
                       std::unique_ptr<OneShotLifeline> lifeline, std::unique_ptr<ResolverReports> reports)
    : client_(std::move(client)), name_(std::move(name)), reports_(std::move(reports)), lifeline_(std::move(lifeline)) {
    try {
        pid_ = spawn_process(argv, cli_env, stdio.in, stdio.out, stdio.err);
    } catch (const std::exception& e) {
        throw sdk::Error(OMS_ERR_FAILED, std::string("docker: ") + e.what());
    }
}

OneShotRun::~OneShotRun() {
    if (waited_ || pid_ < 0) return;
    // Released without a wait: the container must not outlive the run. Killing
    // the CLI alone would leave it running, so remove it through the daemon.
    try {
        remove_container(client_, name_);
    } catch (const std::exception&) {
    }
    kill(pid_, SIGKILL);
    wait_process(pid_);
}

void OneShotRun::signal(int signal_number) {
    // The CLI proxies the signal to the container's process (--sig-proxy defaults to on).
    if (pid_ > 0 && !waited_) kill(pid_, signal_number);
}

int OneShotRun::wait() {
    int code = wait_process(pid_);
    waited_ = true;
    return code;
}

}  // namespace oms::docker
