#include "inner_relay.hpp"

#include "helper_process.hpp"
#include "socket_relay.hpp"

#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace oms::docker::runner {

namespace {

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
        relay::run_relay(listeners, [&](int, size_t index, const std::string&) { return relay::open_through_unix_socket(path.c_str(), ports[index]); },
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
