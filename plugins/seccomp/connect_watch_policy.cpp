// The filter that lets a landlock run's init see where its command tries to
// connect: in a run with its own network namespace the kernel refuses a
// connect off the private loopback (ENETUNREACH) without any packet the
// init's loopback watch could see. Only the init learns of it, through the
// filter's listener; the call then goes on unchanged (the kernel decides).
#include "filter_context.hpp"
#include "policies.hpp"

namespace oms::seccomp_gen {

// connect only. Each stopped call costs a round trip to the watcher (about
// 19 us here, bench/connect-cost.sh), which the filter cannot spare the
// loopback's calls: it cannot read the address. A datagram's sendto pays
// it per datagram (statsd, a resolver's queries), so datagrams sent off
// the loopback without connect are left unreported.
std::vector<sock_filter> connect_watch_policy() {
    FilterContext f;
    f.notify_when("connect", {});
    return f.program();
}

}  // namespace oms::seccomp_gen
