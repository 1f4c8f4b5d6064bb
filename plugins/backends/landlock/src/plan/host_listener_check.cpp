#include "host_listener_check.hpp"

#include <arpa/inet.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/time.h>

#include <cerrno>
#include <cstring>

namespace oms::landlock {

namespace {

constexpr uint32_t kLoopback = 0x7f000001;  // 127.0.0.1, host order

bool reaches_ipv4_loopback(uint32_t address_host_order) {
    return address_host_order == INADDR_ANY || address_host_order == kLoopback;
}

// Whether a listener whose bound address is `source` (as sock_diag reports
// it) takes connections to 127.0.0.1.
bool reaches_loopback(const inet_diag_msg& message, bool v6only) {
    if (message.idiag_family == AF_INET) return reaches_ipv4_loopback(ntohl(message.id.idiag_src[0]));
    if (v6only) return false;
    const uint32_t* words = message.id.idiag_src;
    bool any = words[0] == 0 && words[1] == 0 && words[2] == 0 && words[3] == 0;
    bool v4_mapped = words[0] == 0 && words[1] == 0 && ntohl(words[2]) == 0xffff;
    return any || (v4_mapped && reaches_ipv4_loopback(ntohl(words[3])));
}

bool is_v6only(const nlmsghdr* header, const inet_diag_msg& message) {
    int left = static_cast<int>(header->nlmsg_len) - static_cast<int>(NLMSG_LENGTH(sizeof message));
    for (auto* attribute = reinterpret_cast<const nlattr*>(reinterpret_cast<const char*>(NLMSG_DATA(header)) +
                                                            NLMSG_ALIGN(sizeof message));
         left >= static_cast<int>(sizeof(nlattr)) && attribute->nla_len >= sizeof(nlattr) &&
         attribute->nla_len <= left;
         left -= NLA_ALIGN(attribute->nla_len),
                   attribute = reinterpret_cast<const nlattr*>(reinterpret_cast<const char*>(attribute) +
                                                               NLA_ALIGN(attribute->nla_len))) {
        if ((attribute->nla_type & NLA_TYPE_MASK) == INET_DIAG_SKV6ONLY &&
            attribute->nla_len >= NLA_HDRLEN + sizeof(uint8_t))
            return *(reinterpret_cast<const uint8_t*>(attribute) + NLA_HDRLEN) != 0;
    }
    return false;  // not reported: assume dual-stack, the answer that never refuses a working service
}

}  // namespace

HostListenerCheck::HostListenerCheck()
    : netlink_(socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG)) {
    if (netlink_.get() < 0) return;
    // The kernel answers a dump at once; the timeout only keeps a broken
    // answer from stalling the relay's loop.
    timeval timeout{0, 200 * 1000};
    setsockopt(netlink_.get(), SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
}

std::optional<std::set<uint16_t>> HostListenerCheck::listening_ports() {
    if (netlink_.get() < 0) return std::nullopt;
    std::set<uint16_t> ports;
    if (!dump(AF_INET, ports)) return std::nullopt;
    dump(AF_INET6, ports);  // a host without IPv6 has no such listeners
    return ports;
}

// One dump of the listening TCP sockets of `family`; false when the kernel
// did not answer it completely.
bool HostListenerCheck::dump(int family, std::set<uint16_t>& ports) {
    struct {
        nlmsghdr header;
        inet_diag_req_v2 request;
    } query{};
    query.header.nlmsg_len = sizeof query;
    query.header.nlmsg_type = SOCK_DIAG_BY_FAMILY;
    query.header.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
    query.header.nlmsg_seq = ++sequence_;
    query.request.sdiag_family = static_cast<uint8_t>(family);
    query.request.sdiag_protocol = IPPROTO_TCP;
    query.request.idiag_states = 1u << TCP_LISTEN;
    sockaddr_nl kernel{};
    kernel.nl_family = AF_NETLINK;
    if (sendto(netlink_.get(), &query, sizeof query, 0, reinterpret_cast<sockaddr*>(&kernel), sizeof kernel) !=
        static_cast<ssize_t>(sizeof query))
        return false;
    alignas(nlmsghdr) char buffer[32768];
    for (;;) {
        ssize_t got = recv(netlink_.get(), buffer, sizeof buffer, 0);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) return false;
        int left = static_cast<int>(got);
        for (auto* header = reinterpret_cast<nlmsghdr*>(buffer); NLMSG_OK(header, left);
             header = NLMSG_NEXT(header, left)) {
            if (header->nlmsg_seq != sequence_) continue;  // a late answer to an earlier, abandoned dump
            if (header->nlmsg_type == NLMSG_DONE) return true;
            if (header->nlmsg_type == NLMSG_ERROR) return false;
            if (header->nlmsg_type != SOCK_DIAG_BY_FAMILY || header->nlmsg_len < NLMSG_LENGTH(sizeof(inet_diag_msg)))
                continue;
            const auto& message = *reinterpret_cast<const inet_diag_msg*>(NLMSG_DATA(header));
            if (reaches_loopback(message, message.idiag_family == AF_INET6 && is_v6only(header, message)))
                ports.insert(ntohs(message.id.idiag_sport));
        }
    }
}

std::vector<bool> host_ports_listening(const std::vector<uint16_t>& ports) {
    std::optional<std::set<uint16_t>> listening = HostListenerCheck().listening_ports();
    std::vector<bool> answer;
    for (uint16_t port : ports) answer.push_back(!listening || listening->count(port) != 0);
    return answer;
}

}  // namespace oms::landlock
