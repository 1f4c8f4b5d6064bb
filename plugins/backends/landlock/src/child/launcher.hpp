// Starts the confined child and owns it until wait: fork, collect the
// child's verdict from the CLOEXEC error pipe (EOF means exec happened),
// take the relay listeners, forward signals, reap.
#pragma once
#include "child_spec.hpp"
#include "loopback_relay.hpp"

#include <oms/sdk.hpp>

#include <memory>
#include <mutex>
#include <sys/types.h>

namespace oms::landlock {

class ConfinedRun : public oms::sdk::Run {
public:
    ConfinedRun(pid_t pid, std::unique_ptr<LoopbackRelay> relay);
    ~ConfinedRun() override;
    void signal(int signal_number) override;
    int wait() override;

private:
    pid_t pid_;
    std::mutex mutex_;     // orders signal() against the reaping in wait()
    bool reaped_ = false;  // once true the pid may belong to someone else
    std::unique_ptr<LoopbackRelay> relay_;
};

// Throws oms::sdk::Error(OMS_ERR_FAILED, reason) when the child could not
// confine itself or exec; the command has then not run at all.
std::unique_ptr<ConfinedRun> launch(ChildSpec& spec);

}  // namespace oms::landlock
