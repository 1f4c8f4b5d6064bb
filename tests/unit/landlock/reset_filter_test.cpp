// The loopback watch's socket filters on the real kernel: attached to one
// end of a unix datagram pair, where the kernel runs a socket filter on each
// message as it would on a packet, so crafted IPv4 packets (from the IP
// header, as an IPv4 raw socket gets them) and IPv6 ones (from the
// transport header, as an IPv6 raw socket gets them) show
// what the filter keeps (a TCP reset, cut to its first bytes) and drops
// (other TCP segments, UDP, a later fragment), and the same for the ICMP port
// unreachables the UDP watch keeps, unprivileged.
#include "packet_filter.hpp"
#include "refused_connect_watch.hpp"

#include <catch2/catch.hpp>

#include <sys/socket.h>
#include <unistd.h>

#include <netinet/in.h>

#include <vector>

namespace {

using Bytes = std::vector<uint8_t>;

Bytes ipv4_segment(uint8_t protocol, uint8_t tcp_flags, bool later_fragment = false) {
    Bytes p(20 + 20 + 16, 0);
    p[0] = 0x45;  // version 4, header of 5 words
    if (later_fragment) p[7] = 0x08;  // fragment offset 8
    p[9] = protocol;
    p[20 + 13] = tcp_flags;
    return p;
}

// What an IPv6 raw socket of TCP is given: the TCP header on (and data).
Bytes tcp_v6_payload(uint8_t tcp_flags, size_t size = 20 + 30) {
    Bytes p(size, 0);
    p[13] = tcp_flags;
    return p;
}

// What the receiving end gets of `packet` through `filter`: its length, or -1 when dropped.
ssize_t through(const sock_fprog& filter, const Bytes& packet) {
    int pair[2];
    REQUIRE(socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, pair) == 0);
    REQUIRE(setsockopt(pair[0], SOL_SOCKET, SO_ATTACH_FILTER, &filter, sizeof filter) == 0);
    REQUIRE(send(pair[1], packet.data(), packet.size(), 0) == static_cast<ssize_t>(packet.size()));
    uint8_t buffer[256];
    const ssize_t got = recv(pair[0], buffer, sizeof buffer, MSG_DONTWAIT);
    close(pair[0]);
    close(pair[1]);
    return got;
}

}  // namespace

TEST_CASE("the IPv4 reset filter keeps TCP resets and drops the rest", "[landlock][refusals][filter]") {
    const sock_fprog v4 = oms::landlock::refused_connect_watch::reset_filter(false);
    CHECK(through(v4, ipv4_segment(IPPROTO_TCP, 0x14)) == 56);  // RST|ACK, whole (shorter than 64)
    CHECK(through(v4, ipv4_segment(IPPROTO_TCP, 0x04)) == 56);
    CHECK(through(v4, ipv4_segment(IPPROTO_TCP, 0x12)) == -1);  // SYN|ACK
    CHECK(through(v4, ipv4_segment(IPPROTO_UDP, 0x04)) == -1);
    CHECK(through(v4, ipv4_segment(IPPROTO_TCP, 0x14, true)) == -1);
    Bytes long_reset = ipv4_segment(IPPROTO_TCP, 0x14);
    long_reset.resize(200);
    CHECK(through(v4, long_reset) == 64);  // cut to the bytes the watch reads
}

TEST_CASE("the IPv6 reset filter keeps TCP resets and drops the rest", "[landlock][refusals][filter]") {
    const sock_fprog v6 = oms::landlock::refused_connect_watch::reset_filter(true);
    CHECK(through(v6, tcp_v6_payload(0x14)) == 20);      // RST|ACK: its TCP header, cut from 50
    CHECK(through(v6, tcp_v6_payload(0x04, 20)) == 20);  // RST alone
    CHECK(through(v6, tcp_v6_payload(0x10)) == -1);      // ACK alone
    CHECK(through(v6, tcp_v6_payload(0x02)) == -1);      // SYN
}

namespace {

// An ICMP message of `type` and `code` quoting a datagram of `protocol`.
Bytes icmp_v4(uint8_t type, uint8_t code, uint8_t quoted_protocol = IPPROTO_UDP) {
    Bytes p(20 + 8 + 20 + 8, 0);
    p[0] = 0x45;
    p[9] = IPPROTO_ICMP;
    p[20] = type;
    p[21] = code;
    p[28] = 0x45;
    p[28 + 9] = quoted_protocol;
    return p;
}

// What an IPv6 raw socket of ICMPv6 is given: the ICMPv6 header on, then
// the quoted datagram's IPv6 and UDP headers.
Bytes icmp_v6(uint8_t type, uint8_t code) {
    Bytes p(8 + 40 + 8, 0);
    p[0] = type;
    p[1] = code;
    p[8] = 0x60;
    p[8 + 6] = IPPROTO_UDP;
    return p;
}

}  // namespace

TEST_CASE("the unreachable filters keep ICMP port unreachables and drop the rest", "[landlock][refusals][filter]") {
    const sock_fprog v4 = oms::landlock::refused_connect_watch::unreachable_filter(false);
    CHECK(through(v4, icmp_v4(3, 3)) == 56);   // port unreachable, whole
    CHECK(through(v4, icmp_v4(3, 1)) == -1);   // host unreachable
    CHECK(through(v4, icmp_v4(0, 0)) == -1);   // echo reply
    CHECK(through(v4, ipv4_segment(IPPROTO_TCP, 0x14)) == -1);  // a reset is the other filter's
    Bytes long_one = icmp_v4(3, 3);
    long_one.resize(300);
    CHECK(through(v4, long_one) == 128);
    const sock_fprog v6 = oms::landlock::refused_connect_watch::unreachable_filter(true);
    CHECK(through(v6, icmp_v6(1, 4)) == 56);  // port unreachable, whole
    CHECK(through(v6, icmp_v6(1, 3)) == -1);  // address unreachable
    CHECK(through(v6, icmp_v6(129, 0)) == -1);  // echo reply
    Bytes long_v6 = icmp_v6(1, 4);
    long_v6.resize(300);
    CHECK(through(v6, long_v6) == 96);
}

TEST_CASE("assembled filters jump only to the drop at their end", "[landlock][filter]") {
    using oms::landlock::packet_filter::Check;
    using oms::landlock::packet_filter::Op;
    constexpr Check checks[] = {{Op::load_byte, 9},           {Op::drop_unless_equal, 6},
                                {Op::load_half, 6},           {Op::drop_if_any_bit, 0x1fff},
                                {Op::drop_unless_any_bit, 4}, {Op::keep, 64}};
    constexpr auto program = oms::landlock::packet_filter::assemble(checks);
    REQUIRE(program.size() == 7);
    CHECK(program[6].code == (BPF_RET | BPF_K));
    CHECK(program[6].k == 0u);
    for (size_t i : {size_t{1}, size_t{3}, size_t{4}}) {
        const size_t target = i + 1 + (program[i].jt ? program[i].jt : program[i].jf);
        INFO("instruction " << i);
        CHECK(target == 6);
        CHECK((program[i].jt == 0) != (program[i].jf == 0));  // one way goes on, the other drops
    }
    CHECK(program[5].code == (BPF_RET | BPF_K));
    CHECK(program[5].k == 64u);
}
