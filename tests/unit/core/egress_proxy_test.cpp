// The egress proxy on its own, in this process, against servers on the
// host's 127.0.0.1: what it lets through (a pinned allowed name, by HTTP
// CONNECT, plain HTTP and SOCKS5), what it refuses and logs (a name not on
// the list, a denied one, a name that resolves to loopback without a pin, a
// numeric private address), and that it stays bounded (connections, threads)
// and stops listening when it ends.
#include "oms/core/address_class.hpp"
#include "oms/core/egress_proxy.hpp"
#include "oms/core/egress_request.hpp"
#include "oms/core/egress_rules.hpp"
#include "oms/core/error.hpp"
#include "static_http_server.hpp"

#include <catch2/catch.hpp>

#include <arpa/inet.h>
#include <dirent.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <thread>

using namespace oms::core;
using oms::test::StaticHttpServer;

namespace {

int connect_loopback(uint16_t port) {
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    timeval timeout{5, 0};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

void send_all(int fd, const std::string& bytes) {
    REQUIRE(send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(bytes.size()));
}

std::string read_all(int fd) {
    std::string out;
    char buffer[4096];
    for (ssize_t n; (n = read(fd, buffer, sizeof buffer)) > 0;) out.append(buffer, static_cast<size_t>(n));
    return out;
}

// One request through the proxy, the whole answer.
std::string exchange(uint16_t proxy, const std::string& bytes) {
    int fd = connect_loopback(proxy);
    REQUIRE(fd >= 0);
    send_all(fd, bytes);
    std::string out = read_all(fd);
    close(fd);
    return out;
}

EgressRules pinned_rules(const std::vector<std::string>& allow, const std::vector<std::string>& deny = {}) {
    EgressRules rules;
    for (auto& a : allow) rules.allow.push_back(parse_host_pattern(a, "test"));
    for (auto& d : deny) rules.deny.push_back(parse_host_pattern(d, "test"));
    rules.pinned["pkg.test"] = "127.0.0.1";
    return rules;
}

size_t thread_count() {
    size_t n = 0;
    DIR* dir = opendir("/proc/self/task");
    while (dirent* e = readdir(dir))
        if (e->d_name[0] != '.') ++n;
    closedir(dir);
    return n;
}

std::string socks_connect_name(const std::string& host, int port) {
    std::string request("\x05\x01\x00", 3);  // greeting: no authentication
    request += std::string("\x05\x01\x00\x03", 4) + static_cast<char>(host.size()) + host;
    request += static_cast<char>(port >> 8);
    request += static_cast<char>(port & 0xff);
    return request;
}

}  // namespace

TEST_CASE("host patterns: exact names, wildcards below a domain, ports", "[egress][unit]") {
    const HostPattern exact = parse_host_pattern("registry.npmjs.org", "t");
    CHECK(exact.matches("registry.npmjs.org", 443));
    CHECK(exact.matches("REGISTRY.npmjs.org.", 80));
    CHECK_FALSE(exact.matches("evil-registry.npmjs.org", 443));
    const HostPattern wild = parse_host_pattern("*.crates.io:443", "t");
    CHECK(wild.matches("static.crates.io", 443));
    CHECK_FALSE(wild.matches("static.crates.io", 80));
    CHECK_FALSE(wild.matches("crates.io", 443));
    CHECK_FALSE(wild.matches("evilcrates.io", 443));
    CHECK_THROWS_AS(parse_host_pattern("*.io", "t"), UserError);
    CHECK_THROWS_AS(parse_host_pattern("a.b:0", "t"), UserError);
    CHECK_THROWS_AS(parse_host_pattern("a b", "t"), UserError);
    CHECK_THROWS_AS(parse_host_pattern("a.*.b", "t"), UserError);
    EgressRules rules = pinned_rules({"*.example.org"}, {"bad.example.org"});
    CHECK(rules.decide("good.example.org", 443).allowed);
    CHECK(rules.decide("bad.example.org", 443).rule.rfind("deny_hosts \"bad.example.org\"", 0) == 0);
    CHECK(rules.decide("other.test", 443).rule == "not in allow_hosts");
    // A name pinned to loopback needs its port named: else every service on
    // the host's loopback would be open.
    EgressRules open_pin = pinned_rules({"pkg.test"});
    CHECK_FALSE(open_pin.decide("pkg.test", 22).allowed);
    CHECK(open_pin.decide("pkg.test", 22).rule ==
          "pinned to 127.0.0.1, not a public address: allow it with its port (pkg.test:22)");
    EgressRules port_pin = pinned_rules({"pkg.test:8080"});
    CHECK(port_pin.decide("pkg.test", 8080).allowed);  // the positive control
    CHECK_FALSE(port_pin.decide("pkg.test", 22).allowed);
    open_pin.pinned["pkg.test"] = "93.184.216.34";  // a public pin may go without a port
    CHECK(open_pin.decide("pkg.test", 22).allowed);
}

TEST_CASE("address classes: loopback, private, link-local and metadata are not public", "[egress][unit]") {
    auto kind = [](const char* text) {
        sockaddr_storage s{};
        if (inet_pton(AF_INET, text, &reinterpret_cast<sockaddr_in*>(&s)->sin_addr) == 1)
            s.ss_family = AF_INET;
        else if (inet_pton(AF_INET6, text, &reinterpret_cast<sockaddr_in6*>(&s)->sin6_addr) == 1)
            s.ss_family = AF_INET6;
        return address_class(reinterpret_cast<sockaddr*>(&s));
    };
    CHECK(kind("127.0.0.1") == "loopback");
    CHECK(kind("127.8.9.1") == "loopback");
    CHECK(kind("::1") == "loopback");
    CHECK(kind("::ffff:127.0.0.1") == "loopback");
    CHECK(kind("10.1.2.3") == "private");
    CHECK(kind("172.16.0.1") == "private");
    CHECK(kind("192.168.1.1") == "private");
    CHECK(kind("fd00::1") == "private");
    CHECK(kind("169.254.169.254") == "metadata");
    CHECK(kind("169.254.1.1") == "link-local");
    CHECK(kind("fe80::1") == "link-local");
    CHECK(kind("0.0.0.0") == "unspecified");
    CHECK(kind("64:ff9b::a9fe:a9fe") == "metadata");
    // Positive controls: ordinary public addresses.
    CHECK(kind("93.184.216.34") == "public");
    CHECK(kind("2606:2800:220:1::") == "public");
}

TEST_CASE("request parsing: CONNECT, absolute-form HTTP rewritten, SOCKS5", "[egress][unit]") {
    ParseStep c = parse_proxy_request("CONNECT pkg.test:443 HTTP/1.1\r\nHost: pkg.test:443\r\n\r\n", false);
    REQUIRE(c.state == ParseStep::State::done);
    CHECK(c.request.host == "pkg.test");
    CHECK(c.request.port == 443);
    ParseStep p = parse_proxy_request(
        "GET http://pkg.test:8080/a?b HTTP/1.1\r\nHost: pkg.test:8080\r\nProxy-Connection: keep-alive\r\n\r\n", false);
    REQUIRE(p.state == ParseStep::State::done);
    CHECK(p.request.port == 8080);
    CHECK(p.request.upstream_bytes == "GET /a?b HTTP/1.1\r\nHost: pkg.test:8080\r\nConnection: close\r\n\r\n");
    CHECK(parse_proxy_request("GET http://pkg.test/x HTTP/1.1\r\n", false).state == ParseStep::State::need_more);
    CHECK(parse_proxy_request("GET /x HTTP/1.1\r\n\r\n", false).state == ParseStep::State::bad);
    CHECK(parse_proxy_request(std::string(kMaxRequestHead, 'a'), false).state == ParseStep::State::bad);
    ParseStep greet = parse_proxy_request(std::string("\x05\x01\x00", 3), false);
    REQUIRE(greet.state == ParseStep::State::reply);
    ParseStep s = parse_proxy_request(socks_connect_name("pkg.test", 8080).substr(3), true);
    REQUIRE(s.state == ParseStep::State::done);
    CHECK(s.request.host == "pkg.test");
    CHECK(s.request.port == 8080);
}

TEST_CASE("the proxy carries an allowed pinned name and refuses, and logs, everything else", "[egress][unit]") {
    StaticHttpServer server(std::map<std::string, std::string>{{"/hello", "hello through the proxy\n"}});
    const std::string port = std::to_string(server.port());
    ViolationLog log;
    EgressProxy proxy(pinned_rules({"pkg.test:" + port, "pkg.test:" + std::to_string(server.port() ^ 1), "localhost"},
                                   {"pkg.test:" + std::to_string(server.port() ^ 1)}),
                      log);

    SECTION("plain HTTP, CONNECT and SOCKS5 to the pinned name reach the server") {
        CHECK_THAT(exchange(proxy.port(), "GET http://pkg.test:" + port + "/hello HTTP/1.1\r\nHost: pkg.test:" + port +
                                              "\r\n\r\n"),
                   Catch::Contains("hello through the proxy"));
        const std::string tunnel = exchange(proxy.port(), "CONNECT pkg.test:" + port + " HTTP/1.1\r\n\r\n"
                                                          "GET /hello HTTP/1.1\r\nHost: pkg.test\r\n\r\n");
        CHECK(tunnel.rfind("HTTP/1.1 200 Connection established\r\n\r\n", 0) == 0);
        CHECK_THAT(tunnel, Catch::Contains("hello through the proxy"));
        const std::string socks = exchange(proxy.port(), socks_connect_name("pkg.test", server.port()) +
                                                             "GET /hello HTTP/1.1\r\nHost: pkg.test\r\n\r\n");
        CHECK(socks.substr(0, 4) == std::string("\x05\x00\x05\x00", 4));
        CHECK_THAT(socks, Catch::Contains("hello through the proxy"));
        CHECK(server.requests().size() == 3);
        CHECK(log.count() == 0);
    }
    SECTION("a body far larger than the buffers arrives whole, both ways") {
        std::string big(3 * 1024 * 1024 + 17, 'x');
        for (size_t i = 0; i < big.size(); i += 4096) big[i] = static_cast<char>('a' + (i / 4096) % 26);
        server.add("/big", big);
        const std::string reply = exchange(proxy.port(), "CONNECT pkg.test:" + port + " HTTP/1.1\r\n\r\n"
                                                         "GET /big HTTP/1.1\r\nHost: pkg.test\r\n\r\n");
        REQUIRE(reply.size() > big.size());
        CHECK(reply.substr(reply.size() - big.size()) == big);
        // A request head of 15 KiB passes the other way.
        const std::string long_header(15 * 1024, 'h');
        CHECK_THAT(exchange(proxy.port(), "GET http://pkg.test:" + port + "/hello HTTP/1.1\r\nX-Long: " + long_header +
                                              "\r\n\r\n"),
                   Catch::Contains("hello through the proxy"));
    }
    SECTION("a name not on the list is refused with its rule, and never reaches anything") {
        const std::string reply = exchange(proxy.port(), "CONNECT other.test:" + port + " HTTP/1.1\r\n\r\n");
        CHECK(reply.rfind("HTTP/1.1 403", 0) == 0);
        CHECK_THAT(reply, Catch::Contains("other.test:" + port + " refused: not in allow_hosts"));
        const std::string socks = exchange(proxy.port(), socks_connect_name("other.test", server.port()));
        CHECK(socks.substr(2, 2) == std::string("\x05\x02", 2));  // not allowed by the rule set
        REQUIRE(log.count() == 2);
        CHECK(log.kept()[0].host == "other.test");
        CHECK(log.kept()[0].port == server.port());
        CHECK(log.kept()[0].rule == "not in allow_hosts");
        CHECK(server.requests().empty());
    }
    SECTION("a denied host:port wins over the allowed name") {
        const int denied_port = server.port() ^ 1;
        const std::string reply =
            exchange(proxy.port(), "CONNECT pkg.test:" + std::to_string(denied_port) + " HTTP/1.1\r\n\r\n");
        CHECK(reply.rfind("HTTP/1.1 403", 0) == 0);
        REQUIRE(log.count() == 1);
        CHECK(log.kept()[0].rule.rfind("deny_hosts \"pkg.test:", 0) == 0);
    }
    SECTION("an allowed name that resolves to loopback without a pin is refused") {
        const std::string reply = exchange(proxy.port(), "GET http://localhost:" + port + "/hello HTTP/1.1\r\n\r\n");
        CHECK(reply.rfind("HTTP/1.1 403", 0) == 0);
        REQUIRE(log.count() == 1);
        CHECK(log.kept()[0].host == "localhost");
        CHECK_THAT(log.kept()[0].rule, Catch::Contains("(loopback), which only a pinned name may reach"));
        CHECK(server.requests().empty());
    }
    SECTION("numeric loopback, private and metadata addresses are refused even when listed") {
        EgressRules numeric = pinned_rules({"127.0.0.1", "169.254.169.254", "10.0.0.1"});
        ViolationLog numeric_log;
        EgressProxy other(numeric, numeric_log);
        CHECK(exchange(other.port(), "CONNECT 127.0.0.1:" + port + " HTTP/1.1\r\n\r\n").rfind("HTTP/1.1 403", 0) == 0);
        CHECK(exchange(other.port(), "GET http://169.254.169.254/latest HTTP/1.1\r\n\r\n").rfind("HTTP/1.1 403", 0) == 0);
        CHECK(exchange(other.port(), "CONNECT 10.0.0.1:443 HTTP/1.1\r\n\r\n").rfind("HTTP/1.1 403", 0) == 0);
        REQUIRE(numeric_log.count() == 3);
        CHECK_THAT(numeric_log.kept()[1].rule, Catch::Contains("metadata"));
        CHECK(server.requests().empty());
    }
}

TEST_CASE("the proxy stays bounded: connections, threads, and it stops listening when it ends", "[egress][unit]") {
    // A server that holds every connection open and counts them.
    int holder = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof a;
    REQUIRE(bind(holder, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0);
    REQUIRE(listen(holder, 1024) == 0);
    getsockname(holder, reinterpret_cast<sockaddr*>(&a), &length);
    const int holder_port = ntohs(a.sin_port);
    std::atomic<int> held{0};
    std::atomic<bool> stop{false};
    std::vector<int> held_fds;
    std::thread accepter([&] {
        timeval timeout{0, 100000};
        setsockopt(holder, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
        while (!stop) {
            const int fd = accept(holder, nullptr, nullptr);
            if (fd >= 0) {
                held_fds.push_back(fd);
                ++held;
            }
        }
    });

    const size_t threads_before = thread_count();
    uint16_t proxy_port = 0;
    {
        ViolationLog log;
        EgressProxy proxy(pinned_rules({"pkg.test:" + std::to_string(holder_port)}), log);
        proxy_port = proxy.port();
        const size_t threads_with_proxy = thread_count();
        std::vector<int> clients;
        const size_t wanted = EgressProxy::kMaxConnections + 72;
        for (size_t i = 0; i < wanted; ++i) {
            const int fd = connect_loopback(proxy.port());  // the backlog takes what the proxy does not
            REQUIRE(fd >= 0);
            send_all(fd, "CONNECT pkg.test:" + std::to_string(holder_port) + " HTTP/1.1\r\n\r\n");
            clients.push_back(fd);
        }
        // Poll until the proxy has filled its slots: exactly the bound, never more.
        const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
        while (held < static_cast<int>(EgressProxy::kMaxConnections) && std::chrono::steady_clock::now() < until)
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
        CHECK(held == static_cast<int>(EgressProxy::kMaxConnections));
        CHECK(proxy.open_connections() == EgressProxy::kMaxConnections);
        std::this_thread::sleep_for(std::chrono::milliseconds(200));  // a moment for any excess to show
        CHECK(held == static_cast<int>(EgressProxy::kMaxConnections));
        // No thread per connection: the loop and the resolver, whatever the load.
        CHECK(thread_count() == threads_with_proxy);
        CHECK(threads_with_proxy - threads_before <= 2);
        // Positive control: when clients leave, the waiting ones are taken.
        for (size_t i = 0; i < 72; ++i) close(clients[i]);
        const auto until2 = std::chrono::steady_clock::now() + std::chrono::seconds(10);
        while (held < static_cast<int>(wanted) && std::chrono::steady_clock::now() < until2)
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
        CHECK(held == static_cast<int>(wanted));
        for (size_t i = 72; i < clients.size(); ++i) close(clients[i]);
        // Positive control for the check below: it listens now.
        const int probe = connect_loopback(proxy_port);
        CHECK(probe >= 0);
        if (probe >= 0) close(probe);
    }
    CHECK(connect_loopback(proxy_port) == -1);  // gone with its owner
    stop = true;
    accepter.join();
    for (int fd : held_fds) close(fd);
    close(holder);
}
