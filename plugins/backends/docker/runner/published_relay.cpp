#include "published_relay.hpp"

#include "helper_process.hpp"
#include "host_peer.hpp"
#include "runner_protocol.hpp"
#include "socket_relay.hpp"

#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace oms::docker::runner {

namespace {

void answer_failure(int fd) {
    const unsigned char status = 1;
    (void)!send(fd, &status, 1, MSG_NOSIGNAL | MSG_DONTWAIT);
}

// The port first (two bytes, read by the loop), then a connect to the
// container's 127.0.0.1:PORT without waiting: the loop completes it and
// answers status 0, or closes the connection when nothing listens there
// (oms then resets its client: "connection reset", as under landlock).
relay::FarEnd open_container_port(int accepted, const std::string& request) {
    const uint16_t port = static_cast<uint16_t>(static_cast<unsigned char>(request[0]) << 8 |
                                                static_cast<unsigned char>(request[1]));
    if (port == 0 || !peer_is_outside_container(accepted)) {
        answer_failure(accepted);
        return {};
    }
    const int fd = relay::start_loopback_connect(port);
    if (fd < 0) {
        answer_failure(accepted);
        return {};
    }
    return {fd, relay::FarState::Connecting, nullptr};
}

}  // namespace

const char* publish_relay_from(int& argi, int argc, char** argv) {
    const size_t flag = std::strlen(kPublishRelayFlag);
    if (argi >= argc || std::strncmp(argv[argi], kPublishRelayFlag, flag) != 0 || argv[argi][flag] != '/')
        return nullptr;
    return argv[argi++] + flag;
}

pid_t fork_publish_relay(int listener, bool detached, const std::vector<int>& not_for_helper) {
    return fork_helper(detached, "the published ports' relay", [listener] {
        // Nothing of the runner's but its own socket and the standard streams
        // (the other helpers' ports, the resolver's channel): whatever was
        // open when it was started.
        const int own = dup2(listener, 3) == 3 ? 3 : -1;
        if (own < 0 || syscall(SYS_close_range, 4u, ~0u, 0u) != 0) _exit(1);
        relay::run_relay({own}, [](int accepted, size_t, const std::string& request) {
            return open_container_port(accepted, request);
        }, -1, 2);
    }, not_for_helper);
}

}  // namespace oms::docker::runner
