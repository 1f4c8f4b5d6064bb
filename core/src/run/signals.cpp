#include "oms/core/signals.hpp"

#include <pthread.h>

#include <ctime>
#include <initializer_list>

namespace oms::core {

sigset_t handled_signals() {
    sigset_t set;
    sigemptyset(&set);
    for (int s : {SIGINT, SIGTERM, SIGHUP, SIGUSR2}) sigaddset(&set, s);
    return set;
}

bool should_forward(const siginfo_t& info, bool command_shares_group) {
    return !(command_shares_group && info.si_code == SI_KERNEL);
}

BlockedSignals::BlockedSignals() {
    sigset_t set = handled_signals();
    pthread_sigmask(SIG_BLOCK, &set, &previous_);
}

BlockedSignals::~BlockedSignals() {
    struct timespec zero = {0, 0};
    sigset_t set = handled_signals();
    while (sigtimedwait(&set, nullptr, &zero) > 0) {
    }
    pthread_sigmask(SIG_SETMASK, &previous_, nullptr);
}

}  // namespace oms::core
