// Name resolution in a run with its own network namespace fails at once with
// "no such host", instead of the resolver's retries against a nameserver that
// cannot be reached (EAI_AGAIN after seconds, which tools such as npm retry
// for a minute). The sandbox's /etc/resolv.conf names 127.0.0.1, and the
// run's init answers every query there (UDP and TCP) with NXDOMAIN; where
// there is no resolv.conf to cover, glibc's default is that same address. /etc/hosts still answers
// first, so `localhost` resolves. A run sharing the host's network (the
// trusted listener) keeps the host's resolver untouched.
#pragma once
#include "sandbox_plan.hpp"

#include <poll.h>

namespace oms::landlock {

// The sandbox's resolv.conf; attempts/timeout keep a missing responder short too.
inline constexpr char kSandboxResolvConf[] =
    "# oms sandbox: no network here; every name but /etc/hosts is answered \"no such host\"\n"
    "nameserver 127.0.0.1\n"
    "options attempts:1 timeout:1\n";

// Sets plan.resolv_conf to the real file /etc/resolv.conf names, when the
// run has its own network and the file is visible (not hidden by a mask).
void plan_name_resolution(Plan& plan);

// The responder, run by the init (no allocation: static storage). open()
// binds 127.0.0.1:53 UDP and TCP (needs the namespace's
// CAP_NET_BIND_SERVICE, so before anything drops it) and returns false when
// it cannot; resolution then fails with "connection refused", still at once.
namespace dns_responder {
bool open();
struct Descriptors {
    int udp, tcp;  // -1 when not open
};
Descriptors descriptors();
// Fills up to `capacity` entries with the descriptors to watch; returns how many.
int watch(pollfd* fds, int capacity);
// Serves what `fds` (as filled by watch and polled) reported ready.
void serve(const pollfd* fds, int count);
}  // namespace dns_responder

}  // namespace oms::landlock
