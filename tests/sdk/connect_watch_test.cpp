// oms/connect_watch.hpp: which destinations a connect watch calls off the
// loopback, from the sockaddr bytes a command passes (the whole path on the
// kernel is tested with the landlock init's watch:
// tests/unit/landlock/off_loopback_watch_test.cpp).
#include <oms/connect_watch.hpp>

#include "socket_address.hpp"

#include <catch2/catch.hpp>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <vector>

namespace watch = oms::connect_watch;

namespace {

using oms::test::ipv4_address;
using oms::test::ipv6_address;

bool off(const std::vector<uint8_t>& bytes) { return watch::off_loopback(bytes.data(), bytes.size()); }

}  // namespace

TEST_CASE("the connect watch calls off the loopback what is not 127/8, ::1 or unspecified", "[sdk][connect-watch]") {
    CHECK(off(ipv4_address("10.1.2.3")));
    CHECK(off(ipv4_address("192.0.2.1")));
    CHECK(off(ipv4_address("255.255.255.255")));
    CHECK(off(ipv6_address("2001:db8::1")));
    CHECK(off(ipv6_address("::ffff:10.0.0.1")));
    CHECK(off(ipv6_address("fe80::1")));
    CHECK_FALSE(off(ipv4_address("127.0.0.1")));
    CHECK_FALSE(off(ipv4_address("127.3.4.5")));
    CHECK_FALSE(off(ipv4_address("0.0.0.0")));  // a connect there reaches the local host
    CHECK_FALSE(off(ipv6_address("::1")));
    CHECK_FALSE(off(ipv6_address("::")));
    CHECK_FALSE(off(ipv6_address("::ffff:127.0.0.1")));
    CHECK_FALSE(off(ipv6_address("::ffff:0.0.0.0")));
    // Short or other families: nothing to report.
    auto cut = ipv4_address("10.1.2.3");
    CHECK_FALSE(watch::off_loopback(cut.data(), cut.size() - 1));
    CHECK_FALSE(watch::off_loopback(cut.data(), 1));
    const uint8_t unix_address[] = {AF_UNIX, 0, '/', 't', 'm', 'p', 0};
    CHECK_FALSE(watch::off_loopback(unix_address, sizeof unix_address));
}

