#include "oms/core/local_address.hpp"

#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace oms::core {

namespace {

struct RouteQuestion {
    nlmsghdr header;
    rtmsg route;
    char attributes[RTA_SPACE(sizeof(in6_addr))];
};

// RTM_GETROUTE for one destination, as `ip route get` asks it.
RouteQuestion question_for(const sockaddr* address) {
    RouteQuestion q{};
    const bool v6 = address->sa_family == AF_INET6;
    const size_t size = v6 ? sizeof(in6_addr) : sizeof(in_addr);
    q.header.nlmsg_len = NLMSG_LENGTH(sizeof(rtmsg)) + RTA_SPACE(size);
    q.header.nlmsg_type = RTM_GETROUTE;
    q.header.nlmsg_flags = NLM_F_REQUEST;
    q.header.nlmsg_seq = 1;
    q.route.rtm_family = static_cast<unsigned char>(address->sa_family);
    q.route.rtm_dst_len = static_cast<unsigned char>(size * 8);
    auto* attribute = reinterpret_cast<rtattr*>(q.attributes);
    attribute->rta_type = RTA_DST;
    attribute->rta_len = static_cast<unsigned short>(RTA_LENGTH(size));
    const void* bytes = v6 ? static_cast<const void*>(&reinterpret_cast<const sockaddr_in6*>(address)->sin6_addr)
                           : static_cast<const void*>(&reinterpret_cast<const sockaddr_in*>(address)->sin_addr);
    std::memcpy(RTA_DATA(attribute), bytes, size);
    return q;
}

Locality locality_of(unsigned char route_type) {
    switch (route_type) {
        case RTN_LOCAL:
        case RTN_BROADCAST:
        case RTN_ANYCAST:
        case RTN_MULTICAST: return Locality::local;
        default: return Locality::elsewhere;
    }
}

// The route type in the kernel's answer, or `unknown`. "No route" (an
// error answer of ENETUNREACH and friends) is `elsewhere`: nothing local
// can be reached by a connect that has no route.
Locality read_answer(int fd) {
    alignas(nlmsghdr) char buffer[4096];
    const ssize_t n = ::recv(fd, buffer, sizeof buffer, 0);
    if (n < static_cast<ssize_t>(NLMSG_HDRLEN)) return Locality::unknown;
    const auto* header = reinterpret_cast<const nlmsghdr*>(buffer);
    if (!NLMSG_OK(header, static_cast<size_t>(n))) return Locality::unknown;
    if (header->nlmsg_type == NLMSG_ERROR) {
        if (header->nlmsg_len < NLMSG_LENGTH(sizeof(nlmsgerr))) return Locality::unknown;
        const int error = -static_cast<const nlmsgerr*>(NLMSG_DATA(header))->error;
        return error == ENETUNREACH || error == EHOSTUNREACH || error == EACCES || error == EINVAL
                   ? Locality::elsewhere
                   : Locality::unknown;
    }
    if (header->nlmsg_type != RTM_NEWROUTE || header->nlmsg_len < NLMSG_LENGTH(sizeof(rtmsg))) return Locality::unknown;
    return locality_of(static_cast<const rtmsg*>(NLMSG_DATA(header))->rtm_type);
}

}  // namespace

Locality address_locality(const sockaddr* address) {
    if (address->sa_family != AF_INET && address->sa_family != AF_INET6) return Locality::unknown;
    const int fd = ::socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
    if (fd < 0) return Locality::unknown;
    timeval timeout{1, 0};  // the kernel answers at once; never hold the proxy's loop
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
    RouteQuestion q = question_for(address);
    sockaddr_nl kernel{};
    kernel.nl_family = AF_NETLINK;
    Locality answer = Locality::unknown;
    if (::sendto(fd, &q, q.header.nlmsg_len, 0, reinterpret_cast<sockaddr*>(&kernel), sizeof kernel) ==
        static_cast<ssize_t>(q.header.nlmsg_len))
        answer = read_answer(fd);
    ::close(fd);
    return answer;
}

}  // namespace oms::core
