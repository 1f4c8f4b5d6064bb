// The container's end of the Surfnet relay. With `--network none` the
// container has only its own loopback; for each relayed port the runner
// holds 127.0.0.1:PORT there and carries every connection over the unix
// socket oms serves in the bind-mounted socket folder, where oms connects to
// the host's 127.0.0.1:PORT. Nothing else leaves the container.
#pragma once
#include <sys/types.h>

#include <cstdint>
#include <vector>

namespace oms::docker::runner {

// Reads `--relay=PORT[,PORT...]` at argv[argi] when present (advancing argi);
// false (message printed) when the value is malformed.
bool relay_ports_from(int& argi, int argc, char** argv, std::vector<uint16_t>& ports);

// Holds 127.0.0.1:PORT for each port (listening, close-on-exec); false
// (message printed, nothing held) when one cannot be held.
bool hold_relay_ports(const std::vector<uint16_t>& ports, std::vector<int>& listeners);

// Forks the relay process serving `listeners` (the caller keeps them). With
// `detached`, forked twice (see start_inner_relay); it closes `not_for_helper`
// first (see fork_helper). Returns the pid, 1 when detached, -1 on failure.
pid_t fork_relay(const std::vector<int>& listeners, const std::vector<uint16_t>& ports, const char* socket_path,
                 bool detached, const std::vector<int>& not_for_helper = {});

// Holds 127.0.0.1:PORT for each port, then forks the relay process (it
// cannot be traced or read). Attached (warm: the runner is PID 1), it is the
// runner's child and dies with it. Detached (one-shot: the process becomes
// the command), it is forked twice, so the command never has it as a child
// to wait for; it ends with the container. Returns its pid (attached) or 1
// (detached), 0 when there is no port, -1 when a port cannot be held
// (message printed).
pid_t start_inner_relay(const std::vector<uint16_t>& ports, const char* socket_path, bool detached);

}  // namespace oms::docker::runner
