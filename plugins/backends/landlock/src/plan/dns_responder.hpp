// Name resolution in a run with its own network namespace fails at once with
// "no such host": the sandbox's /etc/resolv.conf names 127.0.0.1, and the
// run's init answers every query there with NXDOMAIN (the SDK's responder,
// oms/dns_responder.hpp). Where there is no resolv.conf
// to cover, glibc's default is that same address. A run sharing the host's
// network (the trusted listener) keeps the host's resolver untouched.
#pragma once
#include "sandbox_plan.hpp"

#include <oms/dns_responder.hpp>

namespace oms::landlock {

using dns_responder::kSandboxResolvConf;

// Sets plan.resolv_conf to the real file /etc/resolv.conf names, when the
// run has its own network and the file is visible (not hidden by a mask).
void plan_name_resolution(Plan& plan);

}  // namespace oms::landlock
