// How the warm container's resolver finds the socket that asked it a name
// (runner/lookup_askers.cpp), against the real kernel's /proc/net tables:
// sockets of this process stand for a command's, and each case checks the
// inode found against the socket's own.
#include "../runner/lookup_askers.hpp"
#include "socket_address.hpp"

#include <catch2/catch.hpp>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>

using oms::dns_responder::Asker;
using namespace oms::docker::runner;

namespace {

constexpr uint32_t kLoopbackOne = 0x7f000001, kLoopbackTwo = 0x7f000002;

sockaddr_in v4(uint32_t address, uint16_t port) {
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(address);
    a.sin_port = htons(port);
    return a;
}

struct UdpSocket {
    int fd = -1;
    explicit UdpSocket(int family = AF_INET) : fd(socket(family, SOCK_DGRAM | SOCK_CLOEXEC, 0)) {
        REQUIRE(fd >= 0);
    }
    ~UdpSocket() { close(fd); }
    UdpSocket(const UdpSocket&) = delete;
    UdpSocket& operator=(const UdpSocket&) = delete;

    void reuse_address() {
        const int on = 1;
        REQUIRE(setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on) == 0);
    }
    void bind_v4(uint32_t address, uint16_t port) {
        const sockaddr_in a = v4(address, port);
        REQUIRE(bind(fd, reinterpret_cast<const sockaddr*>(&a), sizeof a) == 0);
    }
    void connect_v4(uint32_t address, uint16_t port) {
        const sockaddr_in a = v4(address, port);
        REQUIRE(connect(fd, reinterpret_cast<const sockaddr*>(&a), sizeof a) == 0);
    }
    uint16_t port() const { return oms::test::bound_port(fd); }
    unsigned long inode() const {
        struct stat st{};
        REQUIRE(fstat(fd, &st) == 0);
        return static_cast<unsigned long>(st.st_ino);
    }
};

Asker udp_asker(uint16_t port, uint32_t address = kLoopbackOne) { return Asker{false, port, address}; }

}  // namespace

TEST_CASE("docker runner: the asker's socket is found by the address and port the resolver saw", "[docker][unit]") {
    UdpSocket asker;
    asker.bind_v4(kLoopbackOne, 0);
    const uint16_t port = asker.port();
    CHECK(asker_inode(udp_asker(port)) == asker.inode());
    const AskerProcess found = process_of(udp_asker(port));
    CHECK(found.pid == getpid());
    CHECK(found.session == getsid(0));

    SECTION("another socket on the same port at 127.0.0.2 neither takes nor blurs it") {
        UdpSocket other;
        other.bind_v4(kLoopbackTwo, port);
        CHECK(asker_inode(udp_asker(port)) == asker.inode());
        CHECK(asker_inode(udp_asker(port, kLoopbackTwo)) == other.inode());
    }
    SECTION("a socket connected to the resolver is one") {
        UdpSocket connected;
        connected.bind_v4(kLoopbackOne, 0);
        connected.connect_v4(kLoopbackOne, 53);
        CHECK(asker_inode(udp_asker(connected.port())) == connected.inode());
    }
    SECTION("a socket connected elsewhere is not") {
        UdpSocket elsewhere;
        elsewhere.bind_v4(kLoopbackOne, 0);
        elsewhere.connect_v4(kLoopbackOne, 9);
        CHECK(asker_inode(udp_asker(elsewhere.port())) == 0);
    }
    SECTION("two sockets that could both have asked: neither is chosen") {
        UdpSocket first, second;
        first.reuse_address();
        second.reuse_address();
        first.bind_v4(kLoopbackOne, 0);
        second.bind_v4(kLoopbackOne, first.port());
        CHECK(asker_inode(udp_asker(first.port())) == 0);
    }
    SECTION("a search past its deadline finds nothing") {
        CHECK(asker_inode(udp_asker(port), 1) == 0);  // 1 us after the clock's start: long passed
        CHECK(process_of(udp_asker(port), 1).pid == 0);
    }
    SECTION("a port nobody holds finds nothing") {
        const uint16_t gone = [] {
            UdpSocket closed;
            closed.bind_v4(kLoopbackOne, 0);
            return closed.port();
        }();
        CHECK(asker_inode(udp_asker(gone)) == 0);
        CHECK(process_of(udp_asker(gone)).pid == 0);
    }
}

TEST_CASE("docker runner: an unbound or IPv6 socket that asked is found too", "[docker][unit]") {
    SECTION("bound to the unspecified address (a socket that sent without binding)") {
        UdpSocket any;
        any.bind_v4(INADDR_ANY, 0);
        CHECK(asker_inode(udp_asker(any.port())) == any.inode());
    }
    SECTION("an IPv6 socket on ::ffff:127.0.0.1") {
        UdpSocket v6(AF_INET6);
        sockaddr_in6 a{};
        a.sin6_family = AF_INET6;
        REQUIRE(inet_pton(AF_INET6, "::ffff:127.0.0.1", &a.sin6_addr) == 1);
        REQUIRE(bind(v6.fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0);
        CHECK(asker_inode(udp_asker(v6.port())) == v6.inode());
        CHECK(asker_inode(udp_asker(v6.port(), kLoopbackTwo)) == 0);
    }
    SECTION("an IPv6 socket on ::1 cannot have asked 127.0.0.1") {
        UdpSocket v6(AF_INET6);
        sockaddr_in6 a{};
        a.sin6_family = AF_INET6;
        a.sin6_addr = in6addr_loopback;
        REQUIRE(bind(v6.fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0);
        CHECK(asker_inode(udp_asker(v6.port())) == 0);
    }
}
