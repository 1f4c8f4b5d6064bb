// The signals oms forwards to the command (SIGINT, SIGTERM, SIGHUP), plus the
// one it uses to stop its own forwarder thread (SIGUSR2).
#pragma once
#include <signal.h>

namespace oms::core {

sigset_t handled_signals();

// Blocks the handled signals for the life of the object, so they queue for
// the forwarder instead of killing oms before it removes the private HOME.
// On destruction, drops what is still pending and restores the old mask.
class BlockedSignals {
public:
    BlockedSignals();
    ~BlockedSignals();
    BlockedSignals(const BlockedSignals&) = delete;
    BlockedSignals& operator=(const BlockedSignals&) = delete;

private:
    sigset_t previous_;
};

}  // namespace oms::core
