// The proxy decides on one validated host (proxy_host.hpp): a command's
// request whose host hides a second name behind a NUL, a control byte, a
// percent-escape, user information or a numeric form getaddrinfo reads
// otherwise is refused as malformed, by every way in (CONNECT, absolute-form
// HTTP, SOCKS5), and what is matched is what is sent on (the Host header is
// written from it). Each refusal sits next to its positive control.
#include "oms/core/address_class.hpp"
#include "oms/core/egress_request.hpp"
#include "oms/core/egress_rules.hpp"
#include "oms/core/proxy_host.hpp"

#include <catch2/catch.hpp>

#include <arpa/inet.h>
#include <netinet/in.h>

using namespace oms::core;

namespace {

std::string socks_request(const std::string& host, int port) {
    std::string request = std::string("\x05\x01\x00\x03", 4) + static_cast<char>(host.size()) + host;
    request += static_cast<char>(port >> 8);
    request += static_cast<char>(port & 0xff);
    return request;
}

std::string kind(const char* text) {
    sockaddr_storage s{};
    if (inet_pton(AF_INET, text, &reinterpret_cast<sockaddr_in*>(&s)->sin_addr) == 1)
        s.ss_family = AF_INET;
    else if (inet_pton(AF_INET6, text, &reinterpret_cast<sockaddr_in6*>(&s)->sin6_addr) == 1)
        s.ss_family = AF_INET6;
    return address_class(reinterpret_cast<sockaddr*>(&s));
}

}  // namespace

TEST_CASE("proxy host: names by the DNS rules and strict addresses pass, in one canonical form", "[egress][unit]") {
    CHECK(validate_proxy_host("Registry.NPMJS.org.").host == "registry.npmjs.org");
    CHECK(validate_proxy_host("a-b_c.pkg.test").ok);
    CHECK(validate_proxy_host("93.184.216.34").numeric);
    CHECK(validate_proxy_host("2001:0DB8:0::1").host == "2001:db8::1");
    for (const char* bad : {"", ".", "a..b", "-a.test", "a-.test", "a b.test", "a%2eb.test", "user@pkg.test",
                            "2130706433", "0x7f.0.0.1", "127.1", "a.0x10", "fe80::1%eth0", "*.pkg.test"}) {
        CAPTURE(bad);
        CHECK_FALSE(validate_proxy_host(bad).ok);
    }
    CHECK_FALSE(validate_proxy_host(std::string(64, 'a') + ".test").ok);  // a label of 64
    CHECK(validate_proxy_host(std::string(63, 'a') + ".test").ok);        // and of 63
    CHECK_FALSE(validate_proxy_host(std::string("exfil.example\0.pkg.test", 24)).ok);
    CHECK_FALSE(validate_proxy_host("exfil.example\x01.pkg.test").ok);
    CHECK_FALSE(validate_proxy_host("caf\xc3\xa9.test").ok);
}

TEST_CASE("proxy host: a NUL or other hidden byte in the host is refused by CONNECT, absolute-form and SOCKS5",
          "[egress][unit]") {
    const std::string hidden("exfil.example\0.pkg.test", 23);
    auto refused = [](const ParseStep& step) {
        CHECK(step.state == ParseStep::State::bad);
        CHECK(step.refused_host);
        CHECK_THAT(step.why, Catch::StartsWith("malformed host"));
    };
    ParseStep connect = parse_proxy_request("CONNECT " + hidden + ":9999 HTTP/1.1\r\n\r\n", false);
    refused(connect);
    CHECK(connect.reply.rfind("HTTP/1.1 403", 0) == 0);
    CHECK(connect.request.port == 9999);
    refused(parse_proxy_request("GET http://" + hidden + ":9999/ HTTP/1.1\r\n\r\n", false));
    refused(parse_proxy_request("GET http://93.184.216.34" + std::string(1, '\0') + ".pkg.test:9999/ HTTP/1.1\r\n\r\n",
                                false));
    refused(parse_proxy_request("CONNECT pkg.test%00.evil:443 HTTP/1.1\r\n\r\n", false));
    refused(parse_proxy_request("CONNECT 2130706433:443 HTTP/1.1\r\n\r\n", false));
    ParseStep socks = parse_proxy_request(socks_request(hidden, 9999), true);
    refused(socks);
    CHECK(socks.reply.substr(0, 2) == std::string("\x05\x02", 2));  // not allowed by the rule set
    // The positive controls: the same requests without the hidden part.
    ParseStep fine = parse_proxy_request("CONNECT Files.PKG.test.:9999 HTTP/1.1\r\n\r\n", false);
    REQUIRE(fine.state == ParseStep::State::done);
    CHECK(fine.request.host == "files.pkg.test");
    ParseStep fine_socks = parse_proxy_request(socks_request("files.pkg.test", 9999), true);
    REQUIRE(fine_socks.state == ParseStep::State::done);
    CHECK(fine_socks.request.host == "files.pkg.test");
}

TEST_CASE("proxy host: what the allowlist matches is the one host; a wildcard no longer opens the internet",
          "[egress][unit]") {
    EgressRules rules;
    rules.allow.push_back(parse_host_pattern("*.pkg.test:9999", "test"));
    const ParseStep step = parse_proxy_request("CONNECT files.pkg.test:9999 HTTP/1.1\r\n\r\n", false);
    REQUIRE(step.state == ParseStep::State::done);
    CHECK(rules.decide(step.request.host, step.request.port).allowed);  // the control
    // The whole raw string matched the wildcard; no request carries it now.
    CHECK(rules.decide(std::string("exfil.example\0.pkg.test", 23), 9999).allowed);
    CHECK(parse_proxy_request("CONNECT exfil.example" + std::string(1, '\0') + ".pkg.test:9999 HTTP/1.1\r\n\r\n", false)
              .state == ParseStep::State::bad);
}

TEST_CASE("proxy host: a plain request's Host header is written from the matched host", "[egress][unit]") {
    ParseStep p = parse_proxy_request(
        "GET http://PKG.test:8080/a HTTP/1.1\r\nHost: evil.example\r\nhost: other.example\r\nAccept: */*\r\n\r\n", false);
    REQUIRE(p.state == ParseStep::State::done);
    CHECK(p.request.upstream_bytes == "GET /a HTTP/1.1\r\nHost: pkg.test:8080\r\nAccept: */*\r\nConnection: close\r\n\r\n");
    ParseStep v6 = parse_proxy_request("GET http://[2606:2800:220:1::]/ HTTP/1.1\r\n\r\n", false);
    REQUIRE(v6.state == ParseStep::State::done);
    CHECK_THAT(v6.request.upstream_bytes, Catch::Contains("\r\nHost: [2606:2800:220:1::]\r\n"));
}

TEST_CASE("address classes: documentation, local-use NAT64, 6to4 and Teredo forms of inside addresses are not public",
          "[egress][unit]") {
    CHECK(kind("192.0.2.7") == "documentation");
    CHECK(kind("198.51.100.7") == "documentation");
    CHECK(kind("203.0.113.7") == "documentation");
    CHECK(kind("2001:db8::7") == "documentation");
    CHECK(kind("64:ff9b::7f00:1") == "loopback");
    CHECK(kind("64:ff9b:1::5db8:d822") == "private");
    CHECK(kind("::ffff:192.0.2.1") == "documentation");
    CHECK(kind("2002:7f00:1::1") == "loopback");  // 6to4 of 127.0.0.1
    CHECK(kind("2002:a00:1::1") == "private");    // 6to4 of 10.0.0.1
    CHECK(kind("2001:0:5db8:d822:0:0:f5ff:fffe") == "private");  // Teredo, client 10.0.0.1 (inverted)
    CHECK(kind("100::1") == "reserved");
    // The controls: public addresses, and forms that carry public ones.
    CHECK(kind("93.184.216.34") == "public");
    CHECK(kind("2002:5db8:d822::1") == "public");
    CHECK(kind("64:ff9b::5db8:d822") == "public");
    CHECK(kind("2606:2800:220:1::") == "public");
}
