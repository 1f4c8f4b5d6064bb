// The SDK's DNS responder under a burst of TCP connections: a command may
// open many at once while the loop that serves them waits for a CPU. Made
// real in a private network namespace (a user namespace first when not
// root), where the responder binds 127.0.0.1:53: forty connections made
// before it runs are all taken by the kernel at once (none waits for a SYN
// retry, which costs a second), one wake takes them all, the oldest are
// dropped, and a query on the newest is answered NXDOMAIN.
#include <oms/dns_responder.hpp>

#include "namespace_child.hpp"

#include <catch2/catch.hpp>

#include <arpa/inet.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstring>
#include <sstream>
#include <string>
#include <vector>

namespace {

constexpr int kBurst = 40;

bool loopback_up() {
    const int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    ifreq request{};
    std::strncpy(request.ifr_name, "lo", IFNAMSIZ - 1);
    const bool up = fd >= 0 && ioctl(fd, SIOCGIFFLAGS, &request) == 0 &&
                    (request.ifr_flags |= IFF_UP, ioctl(fd, SIOCSIFFLAGS, &request) == 0);
    if (fd >= 0) close(fd);
    return up;
}

// A blocking connect to 127.0.0.1:53 that gives up after 200 ms (a dropped
// SYN is retried only after a second): the descriptor, or -1.
int connect_responder() {
    const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    timeval timeout{0, 200'000};
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof timeout);
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(53);
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0) return fd;
    close(fd);
    return -1;
}

// One pass of the loop that serves the responder, waiting up to `ms`.
void serve_once(int ms) {
    pollfd fds[16];
    const int count = oms::dns_responder::watch(fds, 16);
    if (poll(fds, static_cast<nfds_t>(count), ms) > 0) oms::dns_responder::serve(fds, count);
}

// An A query for example.com with TCP's two-byte length first.
std::string tcp_query() {
    const unsigned char message[] = {0x12, 0x34, 0x01, 0x00, 0, 1, 0, 0, 0, 0, 0, 0,
                                     7, 'e', 'x', 'a', 'm', 'p', 'l', 'e', 3, 'c', 'o', 'm', 0, 0, 1, 0, 1};
    std::string framed{char(0), char(sizeof message)};
    framed.append(reinterpret_cast<const char*>(message), sizeof message);
    return framed;
}

std::string observe() {
    std::ostringstream out;
    if (!oms::test::enter_namespaces(CLONE_NEWNET) || !loopback_up()) return "setup=no network namespace\n";
    if (!oms::dns_responder::open()) return "setup=the responder did not open\n";
    std::vector<int> held;
    for (int i = 0; i < kBurst; ++i) held.push_back(connect_responder());
    int connected = 0;
    for (int fd : held) connected += fd >= 0;
    out << "connected=" << connected << "\n";
    serve_once(0);  // one wake, with every connection pending
    char byte;
    out << "oldest_read=" << (held.front() >= 0 ? read(held.front(), &byte, 1) : -2) << "\n";
    const int newest = held.back();
    const std::string query = tcp_query();
    if (newest < 0 || send(newest, query.data(), query.size(), MSG_NOSIGNAL) != static_cast<ssize_t>(query.size()))
        return out.str() + "setup=no query sent\n";
    unsigned char reply[64];
    ssize_t got = -1;
    for (int pass = 0; pass < 20 && got <= 0; ++pass) {
        serve_once(50);
        got = recv(newest, reply, sizeof reply, MSG_DONTWAIT);
    }
    out << "reply_bytes=" << got << "\n";
    if (got >= 6) out << "reply_id=" << ((reply[2] << 8) | reply[3]) << " rcode=" << (reply[5] & 0x0f) << "\n";
    return out.str();
}

}  // namespace

TEST_CASE("dns responder: a burst of TCP connections is taken at once, and the newest is answered",
          "[dns][unit]") {
    const std::string facts = oms::test::facts_from_child(observe);
    INFO(facts);
    REQUIRE_THAT(facts, !Catch::Contains("setup="));
    CHECK_THAT(facts, Catch::Contains("connected=" + std::to_string(kBurst) + "\n"));
    CHECK_THAT(facts, Catch::Contains("oldest_read=0\n"));  // dropped for a newer one: end of file
    // The control: the newest connection is served, NXDOMAIN for the same query id.
    CHECK_THAT(facts, Catch::Contains("reply_id=4660 rcode=3\n"));
}
