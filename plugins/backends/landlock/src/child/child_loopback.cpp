#include "child_steps.hpp"
#include "descriptor_passing.hpp"
#include "relay_socket.hpp"

#include <arpa/inet.h>
#include <net/if.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

namespace oms::landlock {

namespace {

constexpr size_t kMaxRelayPorts = kMaxPassedDescriptors;

int listen_on_loopback(const ChildSpec& spec, uint16_t port, bool listen_now) {
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) child_fail(spec, "open a relay socket");
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(port);
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    // Bound without SO_REUSEADDR: see relay_socket.hpp. With SO_REUSEPORT,
    // which commands may not set (plugins/seccomp): the runs sharing a task's
    // network (task_network.hpp) each bind the port, and it stays held while
    // any of them runs.
    int one = 1;
    if (setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof one) != 0 || bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
        (listen_now && !relay_start_listening(fd, 128)))
        child_fail(spec, "listen on the sandbox's 127.0.0.1 for the relay");
    return fd;
}

int ipv6_holds[kMaxRelayPorts];
size_t ipv6_hold_count = 0;

// [::1]:PORT of each relayed port, bound and never listening: the relay
// carries 127.0.0.1 only, and a command's server on [::1]:PORT (or [::]:PORT
// with IPV6_V6ONLY) would otherwise take the task's other runs' connects to
// `localhost` there (clients that try ::1 first), meant for the host's
// service. Bound without SO_REUSEADDR, with SO_REUSEPORT (each run of the
// task binds it; commands may not set it), so every other bind conflicts; a
// connect there is refused. Where the namespace has no ::1 there is nothing
// to take.
void hold_ipv6_loopback(uint16_t port) {
    const int fd = socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return;
    int one = 1;
    sockaddr_in6 address{};
    address.sin6_family = AF_INET6;
    address.sin6_port = htons(port);
    address.sin6_addr = in6addr_loopback;
    if (setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof one) != 0 ||
        setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof one) != 0 ||
        bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
        close(fd);
        return;
    }
    ipv6_holds[ipv6_hold_count++] = fd;
}

// The listeners live in the sandbox's network namespace but are served by
// the parent, which stays in the host's: send them over and forget them.
void hand_over(const ChildSpec& spec, const int* fds, size_t count) {
    if (send_with_descriptors(spec.channel_fd, kListenersTag, fds, count, 0) != 1)
        child_fail(spec, "hand the relay sockets to oms");
}

}  // namespace

void bring_loopback_up(const ChildSpec& spec) {
    int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0) child_fail(spec, "open a socket to configure lo");
    ifreq request{};
    strncpy(request.ifr_name, "lo", IFNAMSIZ - 1);
    if (ioctl(fd, SIOCGIFFLAGS, &request) != 0) child_fail(spec, "read the flags of lo");
    request.ifr_flags |= IFF_UP;
    if (ioctl(fd, SIOCSIFFLAGS, &request) != 0) child_fail(spec, "bring lo up");
    close(fd);
}

void setup_loopback(const ChildSpec& spec) {
    if (!spec.own_network) return;
    size_t count = spec.relay_ports.size();
    if (count == 0) return;
    if (count > kMaxRelayPorts) child_fail(spec, "relay: too many loopback ports", nullptr, E2BIG);
    int fds[kMaxRelayPorts];
    for (size_t i = 0; i < count; ++i)
        fds[i] = listen_on_loopback(spec, spec.relay_ports[i], spec.relay_listen.empty() || spec.relay_listen[i]);
    hand_over(spec, fds, count);
    for (size_t i = 0; i < count; ++i) close(fds[i]);
    for (size_t i = 0; i < count; ++i) hold_ipv6_loopback(spec.relay_ports[i]);
}

int relayed_ipv6_holds(const int** fds) {
    *fds = ipv6_holds;
    return static_cast<int>(ipv6_hold_count);
}

}  // namespace oms::landlock
