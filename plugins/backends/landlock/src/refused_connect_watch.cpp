#include "refused_connect_watch.hpp"

#include "child_spec.hpp"
#include "child_steps.hpp"

#include <oms/refusal_log.hpp>

#include <arpa/inet.h>
#include <linux/filter.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

namespace oms::landlock::refused_connect_watch {

namespace {

constexpr size_t kMaxRelayed = 64;

int packet_fd = -1;
int report_fd = -1;
uint16_t relayed[kMaxRelayed];
size_t relayed_count = 0;
uint64_t recent[kRemembered];  // address << 16 | port
int next_recent = 0;
int reports = 0;

// Passes IPv4 TCP segments with RST set (their first 64 bytes), drops the rest.
sock_filter kResetsOnly[] = {
    BPF_STMT(BPF_LD | BPF_B | BPF_ABS, 9),               // protocol
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, IPPROTO_TCP, 0, 6),
    BPF_STMT(BPF_LD | BPF_H | BPF_ABS, 6),               // fragment offset
    BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, 0x1fff, 4, 0),
    BPF_STMT(BPF_LDX | BPF_B | BPF_MSH, 0),              // X = IP header length
    BPF_STMT(BPF_LD | BPF_B | BPF_IND, 13),              // TCP flags
    BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, 0x04, 0, 1),    // RST
    BPF_STMT(BPF_RET | BPF_K, 64),
    BPF_STMT(BPF_RET | BPF_K, 0),
};

int loopback_index(int fd) {
    ifreq request{};
    strncpy(request.ifr_name, "lo", IFNAMSIZ - 1);
    return ioctl(fd, SIOCGIFINDEX, &request) == 0 ? request.ifr_ifindex : -1;
}

bool is_relayed(uint16_t port) {
    for (size_t i = 0; i < relayed_count; ++i)
        if (relayed[i] == port) return true;
    return false;
}

bool seen_before(uint32_t address, uint16_t port) {
    const uint64_t key = (static_cast<uint64_t>(address) << 16) | port;
    for (uint64_t k : recent)
        if (k == key) return true;
    recent[next_recent] = key;
    next_recent = (next_recent + 1) % kRemembered;
    return false;
}

// The rule, in the user's words: a relayed port with no host listener, or
// a port the run never relays.
const char* rule_for(uint16_t port) {
    if (is_relayed(port)) return "relayed, but refused: nothing listened on the host's port (or the relay held all its connections)";
    return "nothing listens there: the sandbox's loopback reaches the host only on the relayed ports "
           "(the Surfnet's, and oms's proxy for [network] allow_hosts)";
}

void inspect(const uint8_t* packet, size_t size) {
    if (size < 20) return;
    const size_t ip_header = static_cast<size_t>(packet[0] & 0x0f) * 4;
    if ((packet[0] >> 4) != 4 || ip_header < 20 || size < ip_header + 20) return;
    const uint8_t* tcp = packet + ip_header;
    uint32_t sequence;
    memcpy(&sequence, tcp + 4, 4);
    const uint8_t flags = tcp[13];
    if (sequence != 0 || !(flags & 0x10) || !(flags & 0x04)) return;  // not the answer to a SYN
    uint32_t address;
    memcpy(&address, packet + 12, 4);  // the reset's source: where the command connected
    const uint16_t port = static_cast<uint16_t>((tcp[0] << 8) | tcp[1]);
    if (seen_before(address, port) || reports >= kMaxReports) return;
    ++reports;
    char text[INET_ADDRSTRLEN] = {0};
    if (!inet_ntop(AF_INET, &address, text, sizeof text)) return;
    refusal_log::append(report_fd, "loopback", text, static_cast<size_t>(-1), port, rule_for(port));
}

}  // namespace

bool open(const ChildSpec& spec) {
    if (spec.report_fd < 0) return false;
    const int fd = socket(AF_PACKET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, htons(ETH_P_IP));
    if (fd < 0) return false;
    sock_fprog program{static_cast<unsigned short>(sizeof kResetsOnly / sizeof kResetsOnly[0]), kResetsOnly};
    sockaddr_ll address{};
    address.sll_family = AF_PACKET;
    address.sll_protocol = htons(ETH_P_IP);
    address.sll_ifindex = loopback_index(fd);
    if (address.sll_ifindex <= 0 || setsockopt(fd, SOL_SOCKET, SO_ATTACH_FILTER, &program, sizeof program) != 0 ||
        bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
        close(fd);
        return false;
    }
    packet_fd = fd;
    report_fd = spec.report_fd;
    relayed_count = spec.relay_ports.size() < kMaxRelayed ? spec.relay_ports.size() : kMaxRelayed;
    for (size_t i = 0; i < relayed_count; ++i) relayed[i] = spec.relay_ports[i];
    return true;
}

int descriptor() { return packet_fd; }

int watch(pollfd* fds, int count, int capacity) {
    if (packet_fd >= 0 && count < capacity) fds[count++] = pollfd{packet_fd, POLLIN, 0};
    return count;
}

void serve(const pollfd* fds, int count) {
    for (int i = 0; i < count; ++i) {
        if (fds[i].fd != packet_fd || !fds[i].revents) continue;
        for (int n = 0; n < 64; ++n) {
            uint8_t packet[64];
            sockaddr_ll from{};
            socklen_t from_size = sizeof from;
            const ssize_t got = recvfrom(packet_fd, packet, sizeof packet, 0, reinterpret_cast<sockaddr*>(&from),
                                         &from_size);
            if (got <= 0) return;
            // Each segment on lo is seen leaving and arriving: count it once.
            if (from.sll_pkttype == PACKET_OUTGOING) continue;
            inspect(packet, static_cast<size_t>(got));
        }
    }
}

}  // namespace oms::landlock::refused_connect_watch
