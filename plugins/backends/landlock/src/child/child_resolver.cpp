// The run's DNS responder (oms/dns_responder.hpp), opened by the init before
// the command starts, with the namespace's capabilities (port 53). In a
// task's shared network (task_network.hpp) each run answers on an address
// of its own, picked at random: where it is taken (a root command of the
// task may bind port 53 there, to answer the run's lookups itself), the run
// fails at this step and is started again with a loopback of its own, so
// no lookup of it ever reaches a command.
#include "child_steps.hpp"

#include <oms/dns_responder.hpp>

#include <errno.h>

namespace oms::landlock {

namespace {

constexpr uint32_t kOwnNetworkResolver = 0x7f000001;  // 127.0.0.1: a network of the run's own

}  // namespace

void open_resolver(const ChildSpec& spec) {
    if (dns_responder::open(spec.resolver_address)) return;
    // In a network of its own, and of no task, the run's lookups fail at
    // once without it ("connection refused"), as they always have. In a
    // task's network the address would be free for another run's command.
    if (spec.resolver_address != kOwnNetworkResolver || spec.tell_network_entered)
        child_fail(spec, kResolverStep, nullptr, errno != 0 ? errno : EADDRINUSE);
}

}  // namespace oms::landlock
