#include "host_publisher.hpp"

#include "host_relay.hpp"
#include "mount_option.hpp"

#include "../runner/runner_protocol.hpp"
#include "../runner/socket_relay.hpp"

#include <oms/published_listeners.hpp>
#include <oms/sdk.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace oms::docker {

std::vector<uint16_t> published_ports(const std::vector<int64_t>& publish_rules) {
    return policy_ports(publish_rules, "published");
}

std::vector<std::string> published_lines(const std::vector<uint16_t>& ports) {
    std::vector<std::string> lines;
    for (uint16_t port : ports) {
        const std::string p = std::to_string(port);
        lines.push_back("docker: port " + p + " published: the host's 127.0.0.1:" + p + " (and [::1]:" + p +
                        ") reaches the container's 127.0.0.1:" + p + " while the run lives");
    }
    return lines;
}

std::string warm_publish_flag() {
    return std::string(runner::kPublishRelayFlag) + kSocketDirInContainer + "/" + runner::kPublishSocketName;
}

std::string one_shot_publish_folder(const std::string& state_dir, const std::string& name) {
    return state_dir + "/docker/" + name + ".pub";
}

void add_one_shot_publishing(ContainerPlan& plan, const std::string& folder) {
    plan.flags.push_back(bind_mount_flag(folder, runner::kPublishDirInContainer, false));
    plan.runner_args.push_back(std::string(runner::kPublishRelayFlag) + runner::kPublishDirInContainer + "/" +
                               runner::kPublishSocketName);
}

HostPublisher::HostPublisher(std::string socket_path, const std::vector<uint16_t>& ports)
    : socket_path_(std::move(socket_path)) {
    sockaddr_un probe{};
    if (socket_path_.size() >= sizeof probe.sun_path)
        throw sdk::Error(OMS_ERR_FAILED, "docker: the published ports' socket path " + socket_path_ + " is too long");
    if (pipe2(stop_, O_CLOEXEC) != 0)
        throw sdk::Error(OMS_ERR_FAILED, std::string("docker: cannot prepare the published ports: ") + std::strerror(errno));
    published::Listeners made;
    try {
        made = published::listen_for_published(ports, "docker");
    } catch (...) {
        close(stop_[0]);
        close(stop_[1]);
        throw;
    }
    listeners_ = made.fds;
    ports_ = made.ports;
    thread_ = std::thread([this] {
        relay::run_relay(listeners_, [this](int, size_t index, const std::string&) {
            return open_publish_socket(ports_[index]);
        }, stop_[0]);
    });
}

// The socket the runner's helper listens on, never what a link there names:
// where oms runs as an ordinary user the container's user owns the socket
// folder, and a command could put a link to any socket of the host (the
// Docker daemon's, another program's) under that name, for every local user
// who connects to the published port. So the entry is opened without
// following a link, must be a socket, and is connected through that very
// descriptor. A socket a command bound there itself serves only its own port.
relay::FarEnd HostPublisher::open_publish_socket(uint16_t port) const {
    const int entry = open(socket_path_.c_str(), O_PATH | O_NOFOLLOW | O_CLOEXEC);
    struct stat st;
    if (entry < 0) return {};
    if (fstat(entry, &st) != 0 || !S_ISSOCK(st.st_mode)) {
        close(entry);
        return {};
    }
    const std::string through = "/proc/self/fd/" + std::to_string(entry);
    relay::FarEnd far = relay::open_through_unix_socket(through.c_str(), port);
    close(entry);
    return far;
}

HostPublisher::~HostPublisher() {
    (void)!write(stop_[1], "x", 1);
    thread_.join();
    for (int fd : listeners_) close(fd);
    close(stop_[0]);
    close(stop_[1]);
}

}  // namespace oms::docker
