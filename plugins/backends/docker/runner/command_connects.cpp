#include "command_connects.hpp"

#include "loopback_listeners.hpp"

#include <arpa/inet.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <iterator>

#include <oms_seccomp_filters.hpp>  // generated from plugins/seccomp/connect_watch_policy.cpp

namespace oms::docker::runner {

void hand_over_connect_watch(int channel) {
    if (channel < 0) return;
    const sock_fprog filter{static_cast<unsigned short>(std::size(seccomp::kConnectWatch)),
                            const_cast<sock_filter*>(seccomp::kConnectWatch)};
    connect_watch::hand_over(filter, channel);  // refused or unsent: the command runs unwatched
    close(channel);
}

bool ConnectWatch::open() { return socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, channel_) == 0; }

void ConnectWatch::forked() {
    if (channel_[1] >= 0) close(channel_[1]);
    channel_[1] = -1;
}

void ConnectWatch::serve(short revents, const std::function<void(const connect_watch::Call&)>& report) {
    if (listener_ < 0 && channel_[0] >= 0) {
        // The listener, or the channel's end: the command exec'd or ended
        // without one. Either way poll said it would not wait.
        if (!(revents & (POLLIN | POLLHUP | POLLERR))) return;
        listener_ = connect_watch::receive_listener(channel_[0]);
        close(channel_[0]);
        channel_[0] = -1;
        return;
    }
    if (listener_ < 0) return;
    if (!(revents & POLLIN)) {
        // No process left under the filter: nothing more will come.
        if (revents & (POLLHUP | POLLERR | POLLNVAL)) close_all();
        return;
    }
    connect_watch::Call call;
    const connect_watch::Answer answer = connect_watch::answer(listener_, call);
    if (answer == connect_watch::Answer::finished) close_all();
    if (answer == connect_watch::Answer::call && call.family != 0) report(call);
}

void ConnectWatch::close_all() {
    for (int* fd : {&channel_[0], &channel_[1], &listener_}) {
        if (*fd >= 0) close(*fd);
        *fd = -1;
    }
}

std::string address_text(const connect_watch::Call& call) {
    char text[INET6_ADDRSTRLEN] = {0};
    if (call.family != AF_INET && call.family != AF_INET6) return "";
    if (!inet_ntop(call.family, call.address, text, sizeof text)) return "";
    return text;
}

bool refused(const connect_watch::Call& call, ListenerLooks& looks) {
    return call.off_loopback || looks.listening_at(call.port) == Listening::no;
}

bool RoutesTold::first_time(const connect_watch::Call& call) {
    if (told_.size() >= kMaxRoutes) return false;
    return told_.insert(address_text(call) + "/" + std::to_string(call.port)).second;
}

}  // namespace oms::docker::runner
