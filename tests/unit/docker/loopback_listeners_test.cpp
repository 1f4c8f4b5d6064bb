// Whether anything listens on a loopback port, from the real kernel's
// /proc/net tables (runner/loopback_listeners.cpp): sockets of this process
// stand for a container's servers. A TCP socket only bound does not take
// connects; listening, it does; a UDP socket bound there does (a UDP
// socket's connect is watched too); a port nobody holds does not.
#include "../runner/loopback_listeners.hpp"
#include "socket_address.hpp"

#include <catch2/catch.hpp>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

using namespace oms::docker::runner;

namespace {

struct BoundSocket {
    int fd = -1;
    BoundSocket(int family, int type, bool listening) : fd(socket(family, type | SOCK_CLOEXEC, 0)) {
        REQUIRE(fd >= 0);
        sockaddr_storage address{};
        socklen_t size;
        if (family == AF_INET) {
            auto* a = reinterpret_cast<sockaddr_in*>(&address);
            a->sin_family = AF_INET;
            a->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
            size = sizeof *a;
        } else {
            auto* a = reinterpret_cast<sockaddr_in6*>(&address);
            a->sin6_family = AF_INET6;
            a->sin6_addr = in6addr_loopback;
            size = sizeof *a;
        }
        REQUIRE(bind(fd, reinterpret_cast<sockaddr*>(&address), size) == 0);
        if (listening) REQUIRE(listen(fd, 4) == 0);
    }
    ~BoundSocket() { close(fd); }
    BoundSocket(const BoundSocket&) = delete;
    BoundSocket& operator=(const BoundSocket&) = delete;
    uint16_t port() const { return oms::test::bound_port(fd); }
};

}  // namespace

TEST_CASE("docker runner: a loopback port takes connects when a TCP socket listens or a UDP socket is bound there",
          "[docker][unit]") {
    uint16_t port;
    {
        BoundSocket bound(AF_INET, SOCK_STREAM, false);
        port = bound.port();
        CHECK(listening_at(port) == Listening::no);  // bound, not listening: a connect is refused
    }
    {
        BoundSocket server(AF_INET, SOCK_STREAM, true);
        CHECK(listening_at(server.port()) == Listening::yes);
    }
    BoundSocket datagrams(AF_INET, SOCK_DGRAM, false);
    CHECK(listening_at(datagrams.port()) == Listening::yes);
    CHECK(listening_at(port) == Listening::no);  // closed again: nobody holds it
    const int probe = socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (probe >= 0) {  // IPv6 here: a server on ::1
        close(probe);
        BoundSocket server6(AF_INET6, SOCK_STREAM, true);
        CHECK(listening_at(server6.port()) == Listening::yes);
    }
}

TEST_CASE("docker runner: the looks stop at their budget and say unknown", "[docker][unit]") {
    BoundSocket server(AF_INET, SOCK_STREAM, true);
    ListenerLooks looks;
    CHECK(looks.listening_at(server.port()) == Listening::yes);
    // A deadline already past: the table is not read whole.
    CHECK(listening_at(server.port(), 1) == Listening::unknown);
}
