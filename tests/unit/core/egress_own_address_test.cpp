// The proxy never connects to the machine itself: an address one of its
// interfaces carries is refused at connect time whatever its range (a
// public address on eth0, a VPN's), since every service bound to 0.0.0.0
// answers on it. Made real in a private network namespace (a user namespace
// first when not root, so it runs as an ordinary user too) whose lo carries
// the public address 93.184.216.34 and a server listening on 0.0.0.0; the
// positive control is a name the user pinned to that address, which
// reaches the server. The child reports what it saw over a pipe, the test
// asserts on it here.
#include "oms/core/egress_proxy.hpp"
#include "oms/core/egress_rules.hpp"
#include "oms/core/local_address.hpp"
#include "oms/core/violation_log.hpp"
#include "namespace_child.hpp"

#include <catch2/catch.hpp>

#include <arpa/inet.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <sched.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

using namespace oms::core;

namespace {

constexpr const char* kOwnPublic = "93.184.216.34";

int listen_any(uint16_t& port) {
    const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    socklen_t length = sizeof a;
    if (bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || listen(fd, 8) != 0 ||
        getsockname(fd, reinterpret_cast<sockaddr*>(&a), &length) != 0)
        return -1;
    port = ntohs(a.sin_port);
    fcntl(fd, F_SETFL, O_NONBLOCK);
    return fd;
}

// The proxy's first answer line to `request`.
std::string ask(uint16_t proxy, const std::string& request) {
    const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    timeval timeout{5, 0};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(proxy);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    std::string reply;
    if (connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0 &&
        send(fd, request.data(), request.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(request.size())) {
        char buffer[512];
        const ssize_t n = read(fd, buffer, sizeof buffer);
        if (n > 0) reply.assign(buffer, static_cast<size_t>(n));
    }
    close(fd);
    return reply.substr(0, reply.find("\r\n"));
}

// Connections the server took since the last call.
int taken(int server) {
    int count = 0;
    for (int fd; (fd = accept(server, nullptr, nullptr)) >= 0; ++count) close(fd);
    return count;
}

// In the child: the facts, one "key=value" line each.
std::string observe() {
    std::ostringstream out;
    if (!oms::test::enter_namespaces(CLONE_NEWNET)) return "setup=no namespace\n";
    const std::string ip = std::string("ip link set lo up && ip addr add ") + kOwnPublic + "/32 dev lo";
    if (std::system(ip.c_str()) != 0) return "setup=ip failed\n";
    uint16_t port = 0;
    const int server = listen_any(port);
    if (server < 0) return "setup=no listener\n";
    const std::string target = std::string(kOwnPublic) + ":" + std::to_string(port);
    sockaddr_in own{};
    own.sin_family = AF_INET;
    inet_pton(AF_INET, kOwnPublic, &own.sin_addr);
    out << "locality=" << (address_locality(reinterpret_cast<sockaddr*>(&own)) == Locality::local) << "\n";
    EgressRules rules;
    rules.allow.push_back(parse_host_pattern(target, "test"));
    rules.allow.push_back(parse_host_pattern("pkg.test:" + std::to_string(port), "test"));
    rules.pinned["pkg.test"] = kOwnPublic;
    ViolationLog log;
    {
        EgressProxy proxy(rules, log);
        out << "literal=" << ask(proxy.port(), "CONNECT " + target + " HTTP/1.1\r\n\r\n") << "\n";
        out << "literal_taken=" << taken(server) << "\n";
        out << "pinned=" << ask(proxy.port(), "CONNECT pkg.test:" + std::to_string(port) + " HTTP/1.1\r\n\r\n") << "\n";
        usleep(100'000);
        out << "pinned_taken=" << taken(server) << "\n";
    }
    for (const Violation& v : log.kept()) out << "refused=" << v.host << ":" << v.port << " " << v.rule << "\n";
    return out.str();
}

}  // namespace

TEST_CASE("the proxy never connects to an address of this machine, whatever its range; a pin still may",
          "[egress][unit]") {
    const std::string facts = oms::test::facts_from_child(observe);
    INFO(facts);
    REQUIRE_THAT(facts, !Catch::Contains("setup="));
    CHECK_THAT(facts, Catch::Contains("locality=1\n"));
    CHECK_THAT(facts, Catch::Contains("literal=HTTP/1.1 403"));
    CHECK_THAT(facts, Catch::Contains("literal_taken=0\n"));
    CHECK_THAT(facts, Catch::Contains(std::string("refused=") + kOwnPublic + ":"));
    CHECK_THAT(facts, Catch::Contains("an address of this machine, which only a pinned name may reach"));
    // The control: the server answers on that address, through a pinned name.
    CHECK_THAT(facts, Catch::Contains("pinned=HTTP/1.1 200 Connection established"));
    CHECK_THAT(facts, Catch::Contains("pinned_taken=1\n"));
}

TEST_CASE("address locality: the kernel says which addresses are this machine's", "[egress][unit]") {
    auto locality = [](const char* text) {
        sockaddr_in s{};
        s.sin_family = AF_INET;
        REQUIRE(inet_pton(AF_INET, text, &s.sin_addr) == 1);
        return address_locality(reinterpret_cast<sockaddr*>(&s));
    };
    CHECK(locality("127.0.0.1") == Locality::local);
    CHECK(locality("127.45.6.7") == Locality::local);
    // Every address an interface of this machine carries, IPv4 and IPv6.
    ifaddrs* interfaces = nullptr;
    REQUIRE(getifaddrs(&interfaces) == 0);
    int seen = 0;
    for (ifaddrs* i = interfaces; i; i = i->ifa_next) {
        if (!i->ifa_addr || (i->ifa_addr->sa_family != AF_INET && i->ifa_addr->sa_family != AF_INET6)) continue;
        if (i->ifa_addr->sa_family == AF_INET6 &&
            IN6_IS_ADDR_LINKLOCAL(&reinterpret_cast<sockaddr_in6*>(i->ifa_addr)->sin6_addr))
            continue;  // a link-local address needs its interface named to be routed at all
        CAPTURE(i->ifa_name);
        CHECK(address_locality(i->ifa_addr) == Locality::local);
        ++seen;
    }
    freeifaddrs(interfaces);
    CHECK(seen >= 1);
    // The control: an address routed elsewhere (or not at all) is not local.
    CHECK(locality("93.184.216.34") == Locality::elsewhere);
}
