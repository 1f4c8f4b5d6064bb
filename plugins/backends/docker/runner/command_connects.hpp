// Where a command tried to go off the container's loopback. With network
// "none" the container's only interface is its `lo`, and the kernel answers
// a connect (or a datagram) to any other address with ENETUNREACH at once:
// nothing the runner or oms could see. So the runner watches its commands'
// connects (oms/connect_watch.hpp): a command installs, after no_new_privs,
// one more seccomp filter (kConnectWatch, plugins/seccomp, the landlock
// init's too) and hands its listener to the runner, which reads each
// connect's destination, lets the call go on unchanged (the kernel decides)
// and reports a destination off the loopback, or a loopback port nothing
// listens on (loopback_listeners.hpp): a warm command's as a frame on its
// oms connection (runner_protocol.hpp), a one-shot command's as a line to
// lookups.sock. Report only: when the filter or the hand-over
// fails, the command runs unwatched and is refused all the same.
#pragma once
#include <oms/connect_watch.hpp>

#include <functional>
#include <set>
#include <string>

namespace oms::docker::runner {

// The command's side, after no_new_privs: the filter, its listener sent on
// `channel`, which is then closed. Nothing when `channel` is -1.
void hand_over_connect_watch(int channel);

// The runner's side for one command.
class ConnectWatch {
public:
    // Before the fork: the channel; false (and nothing watched) when it
    // cannot be made.
    bool open();
    // The end the command sends its listener on (-1 when not open).
    int command_end() const { return channel_[1]; }
    // In the runner after the fork: its copy of the command's end is closed.
    void forked();
    // What to poll for POLLIN: the channel until the listener came, then the
    // listener; -1 once done.
    int descriptor() const { return listener_ >= 0 ? listener_ : channel_[0]; }
    // When poll said `revents` for descriptor(): takes the listener, or
    // answers one call, then (the call gone on) calls `report` with its
    // IPv4 or IPv6 destination.
    void serve(short revents, const std::function<void(const connect_watch::Call&)>& report);
    void close_all();

private:
    int channel_[2] = {-1, -1};
    int listener_ = -1;
};

// Which refused destinations a command was told of: each address and port
// once, at most kMaxRoutes a command.
class RoutesTold {
public:
    static constexpr size_t kMaxRoutes = 1000;
    // True the first time `call` is seen, while the bound leaves room.
    bool first_time(const connect_watch::Call& call);

private:
    std::set<std::string> told_;
};

// "ADDRESS" of a call, as inet_ntop writes it; empty when it has none.
std::string address_text(const connect_watch::Call& call);

// Whether the kernel refused `call` as far as the runner can tell: off the
// loopback always (no route), on it when `looks` finds nothing listening.
class ListenerLooks;
bool refused(const connect_watch::Call& call, ListenerLooks& looks);

}  // namespace oms::docker::runner
