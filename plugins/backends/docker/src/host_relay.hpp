// oms's end of the Surfnet relay (the container's end: runner/inner_relay.hpp).
// Serves relay.sock in the container's socket folder from one thread: each
// connection names a port; only a port of this run's policy
// (NET_CONNECT_LOOPBACK) is connected, and only on the host's 127.0.0.1.
// Connections are bounded (socket_relay.hpp); oms's connect is bounded in
// time, and a refused one is reported back so the container's side resets
// the command's connection at once. Each refusal of oms's end is appended
// to the run's refusal log (oms/refusal_log.hpp, source "relay"): a port the
// run does not relay (only a command speaking to relay.sock itself can ask
// for one), a host port where oms's connect fails at once.
//
// Warm containers are shared by the task's runs, and each run's oms serves
// the socket while it lives: a lock file decides which one serves; the
// others wait and take over when it ends. A run's own socket (its own ports,
// runner_protocol.hpp's run_relay_socket_name) needs no lock: no other run
// serves it, so it is bound at once.
#pragma once
#include "../runner/socket_relay.hpp"
#include "run_companion.hpp"

#include <cstdint>
#include <string>
#include <thread>
#include <vector>

namespace oms::docker {

class HostRelay : public RunCompanion {
public:
    // Throws sdk::Error(OMS_ERR_FAILED) when the socket cannot be served.
    // `lock_path` empty: the socket is this run's own, bound at once.
    // `refusal_file`: the run's refusal log (empty: none).
    HostRelay(std::string socket_path, std::string lock_path, std::vector<uint16_t> ports,
              const std::string& refusal_file = "");
    ~HostRelay() override;
    HostRelay(const HostRelay&) = delete;
    HostRelay& operator=(const HostRelay&) = delete;

private:
    bool try_lock();
    void bind_socket();
    void serve();
    relay::FarEnd open_host_port(int accepted, const std::string& request) const;

    std::string socket_path_, lock_path_;
    std::vector<uint16_t> ports_;
    int lock_fd_ = -1;
    int report_fd_ = -1;
    int listener_ = -1;
    int stop_[2] = {-1, -1};
    std::thread thread_;
};

// The ports of `rules` (numbers of port rules), sorted, no repeats; throws
// sdk::Error(OMS_ERR_INVALID) naming `what` ports for one out of range.
std::vector<uint16_t> policy_ports(const std::vector<int64_t>& rules, const char* what);

// The ports of the policy's NET_CONNECT_LOOPBACK (or NET_CONNECT_RUN_PORT)
// rules, sorted, no repeats.
std::vector<uint16_t> relay_ports(const std::vector<int64_t>& connect_rules);

// "--relay=P,Q" for the runner, or empty when there is no port.
std::string relay_flag(const std::vector<uint16_t>& ports);

}  // namespace oms::docker
