// The docker backend's network plan. The container keeps `--network none`;
// for the policy's NET_CONNECT_LOOPBACK ports the runner holds
// 127.0.0.1:PORT in the container and relays it to the host's
// 127.0.0.1:PORT through oms (host_relay.hpp). A trusted Surfpool run (the
// command is the NET_LISTEN_LOOPBACK binary: same device and inode) gets its
// own one-shot container with no relay instead, so the Surfpool ports of the
// container's loopback are free for it to listen on (nothing outside the
// container reaches them), and the exact file checked on the host is what
// the runner starts (it refuses another file at that path).
// The run's own ports (NET_CONNECT_RUN_PORT: its egress proxy) are relayed
// the same way, but a warm container holds them for this run's command only
// (runner_protocol.hpp), so they are no part of the container's identity; a
// one-shot container is the run's own and holds them with the others.
#pragma once
#include "run_inputs.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace oms::docker {

struct SurfnetPlan {
    std::vector<uint16_t> relay_ports;   // relayed to the host's 127.0.0.1
    std::vector<uint16_t> run_ports;     // the same, this run's alone (none also in relay_ports)
    std::string trusted_binary;          // real path of the trusted Surfpool binary; empty: none
    std::string trusted_expect;          // "DEV:INO:PATH" for the runner's --expect
};

// Throws sdk::Error(OMS_ERR_INVALID) on a malformed port, and
// (OMS_ERR_UNSUPPORTED) when the trusted binary is not inside what the
// container sees (the worktree or an extra mount).
SurfnetPlan plan_surfnet(const RunInputs& in);

// `oms policy` lines: what the relay carries, or the trusted binary's container.
// `warm`: the run's own ports are held for the command alone.
std::vector<std::string> surfnet_lines(const SurfnetPlan& plan, bool warm = false);

// The ports a container's runner holds for the container's whole life (its
// --relay, part of a warm container's identity): a warm container's are the
// fixed ones only, a one-shot container's (the run's own) the run's too.
std::vector<uint16_t> container_relay_ports(const SurfnetPlan& plan, bool warm);

// The real path of what argv[0] runs on the command's PATH (from `env`),
// relative to `cwd`; empty when nothing executable is found.
std::string resolved_command(const std::string& argv0, const std::vector<std::string>& env, const std::string& cwd);

}  // namespace oms::docker
