// [plugin.network] host_ports under docker, through the real `oms run
// --sandbox docker`, one-shot and warm: a host service on a listed port of
// the host's 127.0.0.1 answers a command in the container (relayed like the
// Surfnet port); a service on a port not listed does not, and the refused
// connect is reported; a worktree's config cannot add a port.
#include "docker_fixture.hpp"
#include "oms_user.hpp"
#include "static_http_server.hpp"

#include <catch2/catch.hpp>
#include <filesystem>

using namespace oms::test;
using namespace oms::test::docker;

TEST_CASE("docker: a host_ports port reaches the host's service; another port does not", "[docker][network]") {
    require_daemon();
    const bool warm = GENERATE(false, true);
    CAPTURE(warm);
    StaticHttpServer listed(std::map<std::string, std::string>{{"/", "LISTED-SERVICE\n"}});
    StaticHttpServer unlisted(std::map<std::string, std::string>{{"/", "UNLISTED-SERVICE\n"}});
    const std::string port = std::to_string(listed.port());
    const std::string other = std::to_string(unlisted.port());
    OmsUser u(warm);
    write_file(u.config_file, u.config + "\n[plugin.network]\nhost_ports = [" + port + "]\n");
    ProcessResult r = u.oms({"run", "--", "sh", "-c",
                             "wget -q -O - http://127.0.0.1:" + port + "/; echo listed=$?; "
                             "wget -q -O - http://127.0.0.1:" + other + "/; echo unlisted=$?"});
    INFO(r.out << r.err);
    REQUIRE(r.exit_code == 0);
    CHECK_THAT(r.out, Catch::Contains("LISTED-SERVICE\nlisted=0"));
    CHECK_THAT(r.out, Catch::Contains("unlisted=1"));
    CHECK(r.out.find("UNLISTED-SERVICE") == std::string::npos);
    CHECK(listed.requests().size() == 1);
    CHECK(unlisted.requests().empty());
    CHECK_THAT(r.err, Catch::Contains("127.0.0.1:" + other));

    // A worktree's config may not name one: a config error, nothing runs.
    write_file(u.worktree + "/.oms/config.toml", "[plugin.network]\nhost_ports = [" + other + "]\n");
    ProcessResult widened = u.oms({"run", "--", "sh", "-c", "wget -q -O - http://127.0.0.1:" + other + "/; echo ran"});
    INFO(widened.out << widened.err);
    CHECK(widened.exit_code == 78);
    CHECK_THAT(widened.err, Catch::Contains("plugin.network.host_ports"));
    CHECK(widened.out.find("ran") == std::string::npos);
    CHECK(unlisted.requests().empty());
    std::filesystem::remove(u.worktree + "/.oms/config.toml");
    if (warm) u.oms({"task", "end"});
}
