// Starts the confined child and owns it until wait: fork, collect the
// child's verdict from the CLOEXEC error pipe (EOF means exec happened),
// take the relay listeners, forward signals, reap.
#pragma once
#include "child_spec.hpp"
#include "loopback_relay.hpp"
#include "task_network.hpp"

#include <oms/scoped_fd.hpp>
#include <oms/sdk.hpp>

#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <sys/types.h>

namespace oms::landlock {

class ConfinedRun : public oms::sdk::Run {
public:
    // `end`: the read end of ChildSpec::end_fd.
    ConfinedRun(pid_t pid, sdk::ScopedFd end, std::unique_ptr<LoopbackRelay> relay);
    ~ConfinedRun() override;
    void signal(int signal_number) override;
    int wait() override;
    // Makes the run a member of its task's network (task_network.hpp), if
    // it is not one yet, until it ends.
    void keep_member(std::unique_ptr<TaskNetwork> network);

private:
    pid_t pid_;
    std::mutex mutex_;     // orders signal() against the reaping in wait()
    bool reaped_ = false;  // once true the pid may belong to someone else
    // The init said the run is over (ChildSpec::end_fd): it is ending, not
    // reaped yet, and gets no signal.
    bool told_end_ = false;
    sdk::ScopedFd end_;
    std::optional<int> code_;  // the command's, once waited for
    std::unique_ptr<LoopbackRelay> relay_;
    std::unique_ptr<TaskNetwork> network_;
};

// Why a start failed, kept apart from the message so that the start probe
// (start_probe.hpp) can name the missing piece: the step the child was at
// ("" when the namespaces could not be created at all) and its errno.
class LaunchFailure : public oms::sdk::Error {
public:
    LaunchFailure(const std::string& message, std::string step, int error_number)
        : Error(OMS_ERR_FAILED, message), step_(std::move(step)), error_number_(error_number) {}
    const std::string& step() const { return step_; }
    int error_number() const { return error_number_; }

private:
    std::string step_;
    int error_number_;
};

// Throws LaunchFailure when the child could not be started, confine itself
// or exec; the command has then not run at all. With
// spec.tell_network_entered, `network_entered` is called with the child's
// pid once the child is in its network, while it goes on with its set-up.
std::unique_ptr<ConfinedRun> launch(ChildSpec& spec,
                                    const std::function<void(pid_t)>& network_entered = nullptr);

}  // namespace oms::landlock
