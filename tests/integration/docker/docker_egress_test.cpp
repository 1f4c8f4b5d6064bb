// The egress allowlist in docker mode, through the real `oms run --sandbox
// docker`, one-shot and warm: with [network] allow_hosts naming a host pinned
// to a test server on the host's 127.0.0.1, busybox wget in the container
// reaches it through oms's proxy (relayed into the container by the runner
// like the Surfnet port); a name not on the list is refused and reported
// (the one-line summary, oms explain --last); a direct connection around the
// proxy is refused and reported, to the container's loopback and off it;
// and without allow_hosts the container gets no proxy at all.
#include "docker_fixture.hpp"
#include "oms_user.hpp"
#include "static_http_server.hpp"

#include <catch2/catch.hpp>

using namespace oms::test;
using namespace oms::test::docker;

namespace {

std::vector<std::string> lines_with(const std::string& out, const std::string& prefix) {
    std::vector<std::string> found;
    size_t at = 0;
    while (at < out.size()) {
        const size_t end = out.find('\n', at);
        const std::string line = out.substr(at, end == std::string::npos ? std::string::npos : end - at);
        if (line.rfind(prefix, 0) == 0) found.push_back(line);
        if (end == std::string::npos) break;
        at = end + 1;
    }
    return found;
}

}  // namespace

TEST_CASE("docker: an allowed pinned name is reached through oms's proxy; others and bypasses are refused",
          "[docker][network][egress]") {
    require_daemon();
    const bool warm = GENERATE(false, true);
    CAPTURE(warm);
    StaticHttpServer server(std::map<std::string, std::string>{{"/hello", "HELLO-FROM-HOST\n"}});
    const std::string port = std::to_string(server.port());
    OmsUser u(warm);
    write_file(u.config_file, u.config + "\n[network]\nallow_hosts = [\"pkg.test:" + port + "\"]\n"
                                         "pinned_addresses = { \"pkg.test\" = \"127.0.0.1\" }\n");
    ProcessResult r = u.oms({"run", "--", "sh", "-c",
                             "echo proxy=$http_proxy; "
                             "wget -q -O - http://pkg.test:" + port + "/hello; echo plain=$?; "
                             "wget -q -O - http://other.test:" + port + "/hello; echo other=$?; "
                             "wget -q -Y off -O - http://127.0.0.1:" + port + "/hello; echo direct=$?; "
                             "wget -q -Y off -O - http://pkg.test:" + port + "/hello; echo direct_name=$?; "
                             "wget -q -Y off -O - http://192.0.2.10:" + port + "/hello; echo direct_off=$?"});
    INFO(r.out << r.err);
    REQUIRE(r.exit_code == 0);
    CHECK(lines_with(r.out, "proxy=http://127.0.0.1:").size() == 1);
    CHECK(lines_with(r.out, "HELLO-FROM-HOST").size() == 1);
    CHECK(lines_with(r.out, "plain=0").size() == 1);
    CHECK(lines_with(r.out, "other=1").size() == 1);
    CHECK(lines_with(r.out, "direct=1").size() == 1);
    CHECK(lines_with(r.out, "direct_name=1").size() == 1);
    CHECK(lines_with(r.out, "direct_off=1").size() == 1);
    CHECK(server.requests().size() == 1);  // the one through the proxy, nothing else
    // The run also names what went round the proxy (-Y off): the connects
    // to the container's loopback and off it, and the lookup of pkg.test the
    // container's resolver refused.
    const auto summary = lines_with(r.err, "oms: network: 3 connections refused, 1 name lookup refused: "
                                           "other.test:" + port + " (not in allow_hosts)");
    REQUIRE(summary.size() == 1);
    CHECK_THAT(summary[0], Catch::Contains("pkg.test (answered \"no such host\""));
    CHECK_THAT(summary[0], Catch::Contains("127.0.0.1:" + port + " (nothing listens there"));

    ProcessResult last = u.oms({"explain", "--last"});
    INFO(last.out << last.err);
    CHECK_THAT(last.out, Catch::Contains("  other.test:" + port + "  not in allow_hosts  (egress-proxy)"));
    CHECK_THAT(last.out, Catch::Contains("  192.0.2.10:" + port + "  off the container's loopback"));
    CHECK_THAT(last.out, Catch::Contains("backend: docker"));

    // Without allow_hosts (the control): no proxy, the name is unknown.
    write_file(u.config_file, u.config);
    ProcessResult plain = u.oms({"run", "--", "sh", "-c",
                                 "env | grep -ci '^[a-z_]*proxy='; wget -q -O - http://pkg.test:" + port + "/hello; echo plain=$?"});
    INFO(plain.out << plain.err);
    CHECK(lines_with(plain.out, "0").size() == 1);
    CHECK(lines_with(plain.out, "plain=1").size() == 1);
    CHECK(server.requests().size() == 1);
    if (warm) u.oms({"task", "end"});
}
