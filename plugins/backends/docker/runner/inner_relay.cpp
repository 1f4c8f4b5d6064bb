#include "inner_relay.hpp"

#include "helper_process.hpp"
#include "socket_relay.hpp"

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace oms::docker::runner {

namespace {

// Asks oms for the host's port: the port out (two bytes); oms answers one
// status byte (0: it reached the host's listener) that the relay loop reads
// without waiting here. Anything else resets the command's connection, so a
// client sees the failure at once instead of a silent end.
relay::FarEnd open_through_oms(const char* socket_path, uint16_t port) {
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    std::strncpy(address.sun_path, socket_path, sizeof address.sun_path - 1);
    // Non-blocking: with oms's backlog full the connect fails at once
    // instead of holding up every other connection.
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0) return {};
    const unsigned char request[2] = {static_cast<unsigned char>(port >> 8), static_cast<unsigned char>(port & 0xff)};
    if (connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
        send(fd, request, sizeof request, MSG_NOSIGNAL | MSG_DONTWAIT) != static_cast<ssize_t>(sizeof request)) {
        close(fd);
        return {};
    }
    return {fd, relay::FarState::AwaitingStatus, nullptr};
}

}  // namespace

bool relay_ports_from(int& argi, int argc, char** argv, std::vector<uint16_t>& ports) {
    if (argi >= argc || std::strncmp(argv[argi], "--relay=", 8) != 0) return true;
    const char* at = argv[argi] + 8;
    while (*at) {
        char* end = nullptr;
        const unsigned long port = std::strtoul(at, &end, 10);
        if (end == at || port < 1 || port > 65535 || (*end != ',' && *end != '\0')) {
            std::fprintf(stderr, "oms: bad argument %s\n", argv[argi]);
            return false;
        }
        ports.push_back(static_cast<uint16_t>(port));
        at = *end ? end + 1 : end;
    }
    ++argi;
    return true;
}

bool hold_relay_ports(const std::vector<uint16_t>& ports, std::vector<int>& listeners) {
    for (uint16_t port : ports) {
        int fd = relay::listen_loopback(port);
        if (fd < 0) {
            std::fprintf(stderr, "oms: cannot hold 127.0.0.1:%u in the container for the Surfnet relay: %s\n", port,
                         std::strerror(errno));
            for (int l : listeners) close(l);
            listeners.clear();
            return false;
        }
        listeners.push_back(fd);
    }
    return true;
}

pid_t fork_relay(const std::vector<int>& listeners, const std::vector<uint16_t>& ports, const char* socket_path,
                 bool detached, const std::vector<int>& not_for_helper) {
    const std::string path = socket_path;
    return fork_helper(detached, "the Surfnet relay", [&] {
        relay::run_relay(listeners, [&](int, size_t index, const std::string&) { return open_through_oms(path.c_str(), ports[index]); },
                         -1);
    }, not_for_helper);
}

pid_t start_inner_relay(const std::vector<uint16_t>& ports, const char* socket_path, bool detached) {
    if (ports.empty()) return 0;
    std::vector<int> listeners;
    if (!hold_relay_ports(ports, listeners)) return -1;
    const pid_t pid = fork_relay(listeners, ports, socket_path, detached);
    for (int l : listeners) close(l);
    return pid;
}

}  // namespace oms::docker::runner
