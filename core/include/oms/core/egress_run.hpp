// The egress allowlist in a run: when [network] allow_hosts or --allow-host
// names any host, the run's proxy starts before the command, the policy gets
// one more loopback port to relay (the proxy's: the backends need nothing
// new) and the command gets the proxy variables that curl, npm, git, cargo
// and pip read. With no host allowed nothing starts and the policy is as
// before.
#pragma once
#include "oms/core/egress_proxy.hpp"
#include "oms/core/egress_rules.hpp"
#include "oms/core/policy.hpp"
#include "oms/core/violation_log.hpp"

#include <memory>
#include <string>
#include <vector>

namespace oms::core {

// nullptr when the rules allow no host.
std::unique_ptr<EgressProxy> start_egress_proxy(const EgressRules& rules, ViolationLog& log);

// Adds the proxy's NET_CONNECT_RUN_PORT rule and its variables (replacing
// any the caller's environment passed) to the policy.
void route_through_proxy(Policy& policy, uint16_t port);

// The variables, "NAME=value", for a proxy on 127.0.0.1:port.
std::vector<std::string> proxy_environment(uint16_t port);

// What oms policy and oms doctor print about the allowlist, one line each.
std::vector<std::string> egress_lines(const EgressRules& rules);

}  // namespace oms::core
