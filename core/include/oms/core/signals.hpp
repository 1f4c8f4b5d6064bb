// The signals oms forwards to the command (SIGINT, SIGTERM, SIGHUP), plus the
// one it uses to stop its own forwarder thread (SIGUSR2).
#pragma once
#include <signal.h>

namespace oms::core {

sigset_t handled_signals();

// Whether a signal oms received goes on to the command. Not when the kernel
// sent it to the terminal's foreground group (Ctrl-C, a hangup) and the
// command is in that group as well: it got the signal already, and a second
// delivery would run its handler twice.
bool should_forward(const siginfo_t& info, bool command_shares_group);

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
