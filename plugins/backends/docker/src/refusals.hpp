// What the docker backend refuses whatever the configuration says: privileged
// mode, the Docker socket as a mount, host network/PID/IPC, added
// capabilities, unconfined seccomp or AppArmor, a root user. Each refusal is
// an sdk::Error(OMS_ERR_INVALID) whose message names the offending key.
#pragma once
#include <string>
#include <vector>

namespace oms::docker {

struct Settings;

// Validates user, network, sizes and extra_args.
void check_settings(const Settings& settings);

// Refuses `network` values that share the host's (or another container's) stack.
void check_network(const std::string& network);

// Each extra_args entry must be `--flag=value` (or a bare flag) from a vetted
// list; the dangerous ones get a message saying why.
void check_extra_args(const std::vector<std::string>& args);

// Refuses a mount source (`what` names where it came from, e.g. "read-only
// mount (--ro)") that is, contains, or lies under the Docker socket or
// /var/run/docker*, /run/docker*; also paths docker's --mount syntax cannot
// carry (',' or newline). `socket` is the Engine API socket in use.
void check_mount(const std::string& path, const std::string& what, const std::string& socket);

}  // namespace oms::docker
