// The filter that lets a landlock run's init see where its command tries to
// connect: in a run with its own network namespace the kernel refuses a
// connect off the private loopback (ENETUNREACH) without any packet the
// init's loopback watch could see. Only the init learns of it, through the
// filter's listener; the call then goes on unchanged (the kernel decides).
#include <sys/socket.h>

#include "filter_context.hpp"
#include "policies.hpp"

namespace oms::seccomp_gen {

// connect, and the TCP Fast Open connects: sendto and sendmsg with
// MSG_FASTOPEN (a flag, which the filter can read). Each stopped call costs
// a round trip to the watcher (about 17 us here, bench/connect-cost.sh),
// which the filter cannot spare the loopback's calls: it cannot read the
// address. A datagram's sendto would pay it per datagram (statsd, a
// resolver's queries), so datagrams sent off the loopback without connect
// are left unreported.
std::vector<sock_filter> connect_watch_policy() {
    FilterContext f;
    f.notify_when("connect", {});
    f.notify_when("sendto", {bit_set(3, MSG_FASTOPEN)});
    f.notify_when("sendmsg", {bit_set(2, MSG_FASTOPEN)});
    return f.program();
}

}  // namespace oms::seccomp_gen
