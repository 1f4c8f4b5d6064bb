#include "refused_connect_watch.hpp"

#include "asked_ports.hpp"

#include "child_spec.hpp"
#include "child_steps.hpp"
#include "packet_filter.hpp"
#include "published_sockets.hpp"
#include "refusal_reports.hpp"
#include <oms/refusal_log.hpp>

#include <arpa/inet.h>
#include <linux/filter.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

namespace oms::landlock::refused_connect_watch {

namespace {

constexpr size_t kMaxRelayed = 64;

int packet_v4 = -1, packet_v6 = -1;
int unreachable_v4 = -1, unreachable_v6 = -1;
uint16_t relayed[kMaxRelayed];
size_t relayed_count = 0;
// Published ports: a reset from one to published_sockets::kRelaySource
// answers oms's connect for a host client while nothing listens in the
// sandbox, not a connect of the command.
uint16_t published[kMaxRelayed];
size_t published_count = 0;

using packet_filter::Check;
using packet_filter::Op;

// IPv4 TCP segments with RST set, unfragmented (their first 64 bytes).
constexpr Check kIpv4Resets[] = {
    {Op::load_byte, 9}, {Op::drop_unless_equal, IPPROTO_TCP},  // protocol
    {Op::load_half, 6}, {Op::drop_if_any_bit, 0x1fff},         // a fragment past the first
    {Op::load_ip_header_length, 0}, {Op::load_byte_after_ip, 13},
    {Op::drop_unless_any_bit, 0x04},                           // TCP flags: RST
    {Op::keep, 64},
};
// IPv6 TCP segments with RST set. An IPv6 raw socket is given the
// transport header alone (the addresses come with recvfrom).
constexpr Check kIpv6Resets[] = {
    {Op::load_byte, 13}, {Op::drop_unless_any_bit, 0x04},  // TCP flags: RST
    {Op::keep, 20},
};
// ICMP "port unreachable" (type 3, code 3), unfragmented: the kernel's answer
// to a UDP datagram no socket takes; it quotes the datagram's IP and UDP
// headers. Its first 128 bytes (an IP header with options, 8 of ICMP, the
// quoted headers).
constexpr Check kIpv4Unreachable[] = {
    {Op::load_byte, 9}, {Op::drop_unless_equal, IPPROTO_ICMP},
    {Op::load_half, 6}, {Op::drop_if_any_bit, 0x1fff},
    {Op::load_ip_header_length, 0},
    {Op::load_byte_after_ip, 0}, {Op::drop_unless_equal, 3},  // destination unreachable
    {Op::load_byte_after_ip, 1}, {Op::drop_unless_equal, 3},  // port unreachable
    {Op::keep, 128},
};
// ICMPv6 "port unreachable" (type 1, code 4), from its ICMPv6 header on:
// what an IPv6 raw socket is given. It quotes the datagram's IPv6 and UDP
// headers.
constexpr Check kIpv6Unreachable[] = {
    {Op::load_byte, 0}, {Op::drop_unless_equal, 1},
    {Op::load_byte, 1}, {Op::drop_unless_equal, 4},
    {Op::keep, 96},
};
constexpr auto kIpv4Program = packet_filter::assemble(kIpv4Resets);
constexpr auto kIpv6Program = packet_filter::assemble(kIpv6Resets);
constexpr auto kIpv4UnreachableProgram = packet_filter::assemble(kIpv4Unreachable);
constexpr auto kIpv6UnreachableProgram = packet_filter::assemble(kIpv6Unreachable);

bool is_published(uint16_t port) {
    for (size_t i = 0; i < published_count; ++i)
        if (published[i] == port) return true;
    return false;
}

bool is_relayed(uint16_t port) {
    for (size_t i = 0; i < relayed_count; ++i)
        if (relayed[i] == port) return true;
    return false;
}

// The rules, in the user's words: a relayed port with no host listener, or
// a port the run never relays. The refusal log keeps kMaxField bytes of a
// rule; a longer one would reach the user cut mid-word.
constexpr char kRelayedRefused[] =
    "relayed, but refused: nothing listened on the host's port (or the relay held all its connections)";
constexpr char kNotRelayed[] =
    "nothing listens there: the sandbox's loopback reaches the host only on the allowed local ports "
    "([plugin.network] surfnet_port, host_ports) and through oms's proxy ([network] allow_hosts)";
constexpr char kUdpRelayed[] = "a UDP datagram: the relay carries TCP only";
constexpr char kUdpNotRelayed[] =
    "a UDP datagram, and nothing listens there: the sandbox's loopback reaches the host only on the "
    "relayed TCP ports";
static_assert(sizeof kRelayedRefused <= refusal_log::kMaxField && sizeof kNotRelayed <= refusal_log::kMaxField &&
                  sizeof kUdpRelayed <= refusal_log::kMaxField && sizeof kUdpNotRelayed <= refusal_log::kMaxField,
              "a rule longer than the refusal log keeps would be cut");

const char* rule_for(uint16_t port) { return is_relayed(port) ? kRelayedRefused : kNotRelayed; }

void report(int family, const uint8_t* address, size_t address_size, uint16_t port, const char* rule) {
    refusal_reports::report(family, address, address_size, port, "loopback", rule);
}

// A UDP datagram's words: the relay carries TCP only.
const char* udp_rule_for(uint16_t port) { return is_relayed(port) ? kUdpRelayed : kUdpNotRelayed; }

// A reset the kernel sent for a SYN no socket took, from `address` (where the
// command connected) and the TCP header `tcp`.
// `to_relay`: the reset goes to the published ports' relay address.
void report_reset(int family, const uint8_t* address, size_t address_size, const uint8_t* tcp, bool to_relay) {
    uint32_t sequence;
    memcpy(&sequence, tcp + 4, 4);
    const uint8_t flags = tcp[13];
    if (sequence != 0 || !(flags & 0x10) || !(flags & 0x04)) return;  // not the answer to a SYN
    const uint16_t port = static_cast<uint16_t>((tcp[0] << 8) | tcp[1]);
    if (to_relay && is_published(port)) return;
    if (!asked_ports::may_be_ours(port)) return;  // another run's of the task's network
    report(family, address, address_size, port, rule_for(port));
}

void inspect_v4(const uint8_t* packet, size_t size, const sockaddr_in6&) {
    if (size < 20) return;
    const size_t ip_header = static_cast<size_t>(packet[0] & 0x0f) * 4;
    if ((packet[0] >> 4) != 4 || ip_header < 20 || size < ip_header + 20) return;
    uint32_t destination;
    memcpy(&destination, packet + 16, 4);
    const bool to_relay = ntohl(destination) == published_sockets::kRelaySource;
    report_reset(AF_INET, packet + 12, 4, packet + ip_header, to_relay);  // the source: where the command connected
}

// `from`: the segment's source, where the command connected.
void inspect_v6(const uint8_t* segment, size_t size, const sockaddr_in6& from) {
    if (size < 20) return;
    report_reset(AF_INET6, from.sin6_addr.s6_addr, 16, segment, false);  // the relay connects over IPv4 only
}

// A port unreachable quoting a UDP datagram: its destination address and
// port are where the command sent it.
void inspect_unreachable_v4(const uint8_t* packet, size_t size, const sockaddr_in6&) {
    if (size < 20 || (packet[0] >> 4) != 4) return;
    const size_t quoted = static_cast<size_t>(packet[0] & 0x0f) * 4 + 8;
    if (size < quoted + 20 || (packet[quoted] >> 4) != 4 || packet[quoted + 9] != IPPROTO_UDP) return;
    const size_t udp = quoted + static_cast<size_t>(packet[quoted] & 0x0f) * 4;
    if (size < udp + 8) return;
    const uint16_t port = static_cast<uint16_t>((packet[udp + 2] << 8) | packet[udp + 3]);
    report(AF_INET, packet + quoted + 16, 4, port, udp_rule_for(port));
}

void inspect_unreachable_v6(const uint8_t* packet, size_t size, const sockaddr_in6&) {
    constexpr size_t quoted = 8, udp = quoted + 40;
    if (size < udp + 8 || (packet[quoted] >> 4) != 6 || packet[quoted + 6] != IPPROTO_UDP) return;
    const uint16_t port = static_cast<uint16_t>((packet[udp + 2] << 8) | packet[udp + 3]);
    report(AF_INET6, packet + quoted + 24, 16, port, udp_rule_for(port));
}

// A raw socket of `family` taking a copy of every `protocol` packet the
// namespace receives (its only interface is lo), through `filter`. Not a
// packet socket: the kernel waits for an RCU grace period when a packet
// socket's protocol hook is replaced at bind and again at every close
// (8 to 16 ms each on some machines), which every run would pay twice per
// socket; a raw socket opens and closes without waiting.
int open_raw(int family, int protocol, sock_fprog filter) {
    const int fd = socket(family, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC, protocol);
    if (fd < 0) return -1;
    if (setsockopt(fd, SOL_SOCKET, SO_ATTACH_FILTER, &filter, sizeof filter) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

using Inspect = void (*)(const uint8_t*, size_t, const sockaddr_in6&);

void drain(int fd, Inspect inspect) {
    for (int n = 0; n < 64; ++n) {
        uint8_t packet[128];
        sockaddr_in6 from{};  // the larger of the two families' addresses
        socklen_t from_size = sizeof from;
        const ssize_t got = recvfrom(fd, packet, sizeof packet, 0, reinterpret_cast<sockaddr*>(&from), &from_size);
        if (got <= 0) return;
        inspect(packet, static_cast<size_t>(got), from);
    }
}

}  // namespace

bool open(const ChildSpec& spec) {
    if (spec.report_fd < 0) return false;
    packet_v4 = open_raw(AF_INET, IPPROTO_TCP, reset_filter(false));
    // No IPv6 (disabled on this machine) leaves only it unwatched.
    packet_v6 = open_raw(AF_INET6, IPPROTO_TCP, reset_filter(true));
    unreachable_v4 = open_raw(AF_INET, IPPROTO_ICMP, unreachable_filter(false));
    unreachable_v6 = open_raw(AF_INET6, IPPROTO_ICMPV6, unreachable_filter(true));
    if (packet_v4 < 0 && packet_v6 < 0 && unreachable_v4 < 0 && unreachable_v6 < 0) return false;
    relayed_count = spec.relay_ports.size() < kMaxRelayed ? spec.relay_ports.size() : kMaxRelayed;
    for (size_t i = 0; i < relayed_count; ++i) relayed[i] = spec.relay_ports[i];
    published_count = spec.publish_ports.size() < kMaxRelayed ? spec.publish_ports.size() : kMaxRelayed;
    for (size_t i = 0; i < published_count; ++i) published[i] = spec.publish_ports[i];
    return true;
}

sock_fprog reset_filter(bool v6) {
    // The kernel copies the program at attach time and never writes it.
    if (v6) return sock_fprog{kIpv6Program.size(), const_cast<sock_filter*>(kIpv6Program.data())};
    return sock_fprog{kIpv4Program.size(), const_cast<sock_filter*>(kIpv4Program.data())};
}

sock_fprog unreachable_filter(bool v6) {
    if (v6)
        return sock_fprog{kIpv6UnreachableProgram.size(), const_cast<sock_filter*>(kIpv6UnreachableProgram.data())};
    return sock_fprog{kIpv4UnreachableProgram.size(), const_cast<sock_filter*>(kIpv4UnreachableProgram.data())};
}

Descriptors descriptors() { return Descriptors{packet_v4, packet_v6, unreachable_v4, unreachable_v6}; }

int watch(pollfd* fds, int count, int capacity) {
    for (int fd : {packet_v4, packet_v6, unreachable_v4, unreachable_v6})
        if (fd >= 0 && count < capacity) fds[count++] = pollfd{fd, POLLIN, 0};
    return count;
}

void serve(const pollfd* fds, int count) {
    for (int i = 0; i < count; ++i) {
        if (!fds[i].revents) continue;
        if (fds[i].fd == packet_v4 && packet_v4 >= 0) drain(packet_v4, inspect_v4);
        if (fds[i].fd == packet_v6 && packet_v6 >= 0) drain(packet_v6, inspect_v6);
        if (fds[i].fd == unreachable_v4 && unreachable_v4 >= 0) drain(unreachable_v4, inspect_unreachable_v4);
        if (fds[i].fd == unreachable_v6 && unreachable_v6 >= 0) drain(unreachable_v6, inspect_unreachable_v6);
    }
}

}  // namespace oms::landlock::refused_connect_watch
