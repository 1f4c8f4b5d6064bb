#include "host_relay.hpp"

#include "private_socket.hpp"

#include "../runner/socket_relay.hpp"

#include <oms/refusal_log.hpp>
#include <oms/sdk.hpp>

#include <fcntl.h>
#include <poll.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <set>

namespace oms::docker {

namespace {

void answer(int fd, unsigned char status) { (void)!send(fd, &status, 1, MSG_NOSIGNAL); }

}  // namespace

std::vector<uint16_t> policy_ports(const std::vector<int64_t>& rules, const char* what) {
    std::set<uint16_t> ports;
    for (int64_t port : rules) {
        if (port < 1 || port > 65535)
            throw sdk::Error(OMS_ERR_INVALID, std::string("docker: invalid ") + what + " port in the policy");
        ports.insert(static_cast<uint16_t>(port));
    }
    return {ports.begin(), ports.end()};
}

std::vector<uint16_t> relay_ports(const std::vector<int64_t>& connect_rules) {
    return policy_ports(connect_rules, "loopback");
}

std::string relay_flag(const std::vector<uint16_t>& ports) {
    std::string out;
    for (uint16_t port : ports) out += (out.empty() ? "--relay=" : ",") + std::to_string(port);
    return out;
}

HostRelay::HostRelay(std::string socket_path, std::string lock_path, std::vector<uint16_t> ports,
                     const std::string& refusal_file)
    : socket_path_(std::move(socket_path)),
      lock_path_(std::move(lock_path)),
      ports_(std::move(ports)) {
    sockaddr_un probe{};
    if (socket_path_.size() >= sizeof probe.sun_path)
        throw sdk::Error(OMS_ERR_FAILED, "docker: the relay socket path " + socket_path_ + " is too long");
    if (!lock_path_.empty()) lock_fd_ = open(lock_path_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
    if ((!lock_path_.empty() && lock_fd_ < 0) || pipe2(stop_, O_CLOEXEC) != 0) {
        const std::string why = std::strerror(errno);
        if (lock_fd_ >= 0) close(lock_fd_);
        throw sdk::Error(OMS_ERR_FAILED, "docker: cannot prepare the Surfnet relay (" + lock_path_ + "): " + why);
    }
    try {
        // Served before the command starts, unless another run of this
        // container serves it now (then this one stands by).
        if (try_lock()) bind_socket();
    } catch (...) {
        if (lock_fd_ >= 0) close(lock_fd_);
        close(stop_[0]);
        close(stop_[1]);
        throw;
    }
    report_fd_ = refusal_log::open_for_append(refusal_file.c_str());  // last: nothing throws after it
    thread_ = std::thread([this] { serve(); });
}

HostRelay::~HostRelay() {
    (void)!write(stop_[1], "x", 1);
    thread_.join();
    if (listener_ >= 0) {
        close(listener_);
        unlink(socket_path_.c_str());  // before the lock goes: a successor binds afresh
    }
    if (lock_fd_ >= 0) close(lock_fd_);
    if (report_fd_ >= 0) close(report_fd_);
    close(stop_[0]);
    close(stop_[1]);
}

// Without a lock file the socket is this run's alone: always its to serve.
bool HostRelay::try_lock() { return lock_fd_ < 0 || flock(lock_fd_, LOCK_EX | LOCK_NB) == 0; }

// A predecessor's socket, or whatever a command put there, is replaced
// (this run holds the lock); the mode is set where no command can swap a
// link in (private_socket.hpp). The container's user is another uid: 0666
// on the socket, the folder keeps others out.
void HostRelay::bind_socket() { listener_ = listen_privately(socket_path_, 0666, "the Surfnet relay"); }

void HostRelay::serve() {
    while (listener_ < 0) {
        pollfd stop{stop_[0], POLLIN, 0};
        if (poll(&stop, 1, 100) > 0) return;
        if (!try_lock()) continue;
        try {
            bind_socket();
        } catch (const std::exception&) {
            return;  // the command's connections are refused: it sees the failure itself
        }
    }
    relay::run_relay(
        {listener_}, [this](int accepted, size_t, const std::string& request) { return open_host_port(accepted, request); },
        stop_[0], 2);
}

// The port first (two bytes, read by the loop); a port of the policy is
// connected on the host's 127.0.0.1 without waiting (the loop completes it
// and answers status 0), anything else gets status 1 and is closed.
relay::FarEnd HostRelay::open_host_port(int accepted, const std::string& request) const {
    const uint16_t port = static_cast<uint16_t>(static_cast<unsigned char>(request[0]) << 8 |
                                                static_cast<unsigned char>(request[1]));
    if (std::find(ports_.begin(), ports_.end(), port) == ports_.end()) {
        refusal_log::append(report_fd_, "relay", "127.0.0.1", 9, port,
                            "not a port this run relays (asked of relay.sock directly)");
        answer(accepted, 1);
        return {};
    }
    const int fd = relay::start_loopback_connect(port);
    if (fd < 0) {
        refusal_log::append(report_fd_, "relay", "127.0.0.1", 9, port, "relayed, but nothing listened on the host's port");
        answer(accepted, 1);
        return {};
    }
    const int report = report_fd_;
    return {fd, relay::FarState::Connecting, [report, port] {
                refusal_log::append(report, "relay", "127.0.0.1", 9, port,
                                    "relayed, but nothing listened on the host's port");
            }};
}

}  // namespace oms::docker
