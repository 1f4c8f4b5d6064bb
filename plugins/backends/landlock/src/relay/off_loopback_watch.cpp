#include "off_loopback_watch.hpp"

#include "asked_ports.hpp"
#include "refusal_reports.hpp"

#include <oms/connect_watch.hpp>

#include <sys/socket.h>
#include <unistd.h>

#include <iterator>

#include <oms_seccomp_filters.hpp>  // generated from plugins/seccomp/connect_watch_policy.cpp

namespace oms::landlock::off_loopback_watch {

namespace {

int channel[2] = {-1, -1};  // [0] the init's end, [1] the command's
int listener = -1;

const char* const kConnectRule =
    "off the sandbox's loopback: the sandbox has no route to other hosts (names on [network] allow_hosts "
    "go through oms's proxy)";

void stop_watching() {
    if (listener >= 0) close(listener);
    listener = -1;
}

void answer_one() {
    connect_watch::Call call;
    const connect_watch::Answer answer = connect_watch::answer(listener, call);
    if (answer == connect_watch::Answer::finished) stop_watching();
    if (answer != connect_watch::Answer::call) return;
    if (!call.off_loopback) {
        if (call.family) asked_ports::remember(call.port);
        return;
    }
    refusal_reports::report(call.family, call.address, call.family == AF_INET ? 4 : 16, call.port, "route",
                            kConnectRule);
}

}  // namespace

bool prepare() {
    if (refusal_reports::log_descriptor() < 0) return false;
    return socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, channel) == 0;
}

void install_in_command() {
    if (channel[1] < 0) return;
    const sock_fprog filter{static_cast<unsigned short>(std::size(seccomp::kConnectWatch)),
                            const_cast<sock_filter*>(seccomp::kConnectWatch)};
    connect_watch::hand_over(filter, channel[1]);  // refused or unsent: the calls go on unwatched
    // Its own copy only: the command may share the init's memory (CLONE_VM)
    // but not its descriptors, so `channel` is left as the init has it.
    close(channel[1]);
}

void take_listener() {
    if (channel[0] < 0) return;
    // The command's copy is then all that keeps the channel open: it ends
    // at the command's exec or exit.
    close(channel[1]);
    channel[1] = -1;
    listener = connect_watch::receive_listener(channel[0]);
    if (listener >= 0) asked_ports::start_filtering();
    close(channel[0]);
    channel[0] = -1;
}

int descriptor() { return listener; }

int watch(pollfd* fds, int count, int capacity) {
    if (listener >= 0 && count < capacity) fds[count++] = pollfd{listener, POLLIN, 0};
    return count;
}

void serve(const pollfd* fds, int count) {
    for (int i = 0; i < count; ++i) {
        if (listener < 0 || fds[i].fd != listener || !fds[i].revents) continue;
        if (fds[i].revents & POLLIN) answer_one();
        // No process left under the filter: nothing more will come.
        else if (fds[i].revents & (POLLHUP | POLLERR | POLLNVAL)) stop_watching();
    }
}

}  // namespace oms::landlock::off_loopback_watch
