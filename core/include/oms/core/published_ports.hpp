// [network] publish and --publish: ports of the command's own loopback that
// processes of the host reach at the host's 127.0.0.1:PORT while the run
// lives (a dev server the user's browser opens). They reach the backend as
// NET_PUBLISH_LOOPBACK rules (plugin ABI 1.5); a backend that does not
// declare that kind never gets them, and the run says so in one line
// (policy_lowering.hpp).
#pragma once
#include "oms/core/config.hpp"
#include "oms/core/plugin.hpp"
#include "oms/core/policy.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace oms::core {

// The ports to publish: the user config's [network] publish (a worktree's
// config cannot set it: the schema says so), then --publish PORT. Throws
// UserError naming the file, line and key (or the flag) for a value that is
// not a TCP port.
std::vector<uint16_t> published_ports(const Config& config, const std::vector<std::string>& cli_ports);

// Adds a NET_PUBLISH_LOOPBACK rule per port. Throws UserError (exit 78) when
// a port is also one the policy connects to on the host (surfnet_port,
// host_ports): the sandbox's port would then be the relay to the host's.
void add_published_ports(Policy& policy, const std::vector<uint16_t>& ports);

}  // namespace oms::core
