// oms's end of published ports under docker (`--publish PORT`, [network]
// publish: NET_PUBLISH_LOOPBACK). The container has no network but its
// loopback; oms listens on the host's 127.0.0.1:PORT and [::1]:PORT
// (oms/published_listeners.hpp: a port another program holds refuses the run
// before anything runs) and carries each connection over the runner's
// pub.sock (runner/published_relay.hpp) to the container's
// 127.0.0.1:PORT, in a warm container or a one-shot one. Bounded and single-threaded (runner/socket_relay.hpp).
// Where nothing listens inside, the host's client gets a reset: no refusal
// of the command, none is reported.
#pragma once
#include "container_plan.hpp"
#include "run_companion.hpp"

#include "../runner/socket_relay.hpp"

#include <cstdint>
#include <string>
#include <thread>
#include <vector>

namespace oms::docker {

class HostPublisher : public RunCompanion {
public:
    // Listens before it returns; throws sdk::Error(OMS_ERR_UNAVAILABLE) when a
    // port cannot be had, (OMS_ERR_FAILED) when the socket path is too long.
    HostPublisher(std::string socket_path, const std::vector<uint16_t>& ports);
    ~HostPublisher() override;
    HostPublisher(const HostPublisher&) = delete;
    HostPublisher& operator=(const HostPublisher&) = delete;

private:
    relay::FarEnd open_publish_socket(uint16_t port) const;

    std::string socket_path_;
    std::vector<int> listeners_;
    std::vector<uint16_t> ports_;  // the port of each listener
    int stop_[2] = {-1, -1};
    std::thread thread_;
};

// The published ports of the policy's NET_PUBLISH_LOOPBACK rules, sorted, no repeats.
std::vector<uint16_t> published_ports(const std::vector<int64_t>& publish_rules);

// `oms policy`'s line for each published port.
std::vector<std::string> published_lines(const std::vector<uint16_t>& ports);

// The runner's flag for a warm container: pub.sock in its socket folder.
std::string warm_publish_flag();

// A one-shot container's socket folder is read-only to it: a run that
// publishes gets a folder of its own for pub.sock, state_dir/docker/NAME.pub
// (never longer than the run's relay folder), which `plan` mounts at
// kPublishDirInContainer and names to the runner.
std::string one_shot_publish_folder(const std::string& state_dir, const std::string& name);
void add_one_shot_publishing(ContainerPlan& plan, const std::string& folder);

}  // namespace oms::docker
