// [plugin.network] host_ports: a run reaches a service of the user's own on
// the host's 127.0.0.1 (a database, a dev server) only on a port the user's
// config names, through the same relay as the Surfnet port; a worktree's
// config cannot name one (it would widen the policy). The host service
// counts the connections it took, so a refusal is seen on the host's side.
#include "host_echo_server.hpp"
#include "landlock_sandbox.hpp"
#include "test_support.hpp"

#include <catch2/catch.hpp>

#include <fstream>

using namespace oms::test;

TEST_CASE("host_ports: a host service is reached on a port the user's config names, and only then",
          "[landlock][network][relay]") {
    require_landlock();
    REQUIRE(oms_run_available());
    World w;
    HostEchoServer host;
    host.start();
    const std::string port = std::to_string(host.port());
    const std::string script = "{probe} echo-bulk " + port + " 100; exit 0";

    auto without = run_in_oms(w, expand(w, script));
    INFO(without.out << without.err);
    CHECK(lines_starting(without.out, "DENIED connect").size() == 1);
    CHECK(host.accepted() == 0);  // nothing reached the host

    std::ofstream(w.root / "xdg-config/oms/config.toml", std::ios::app)
        << "[plugin.network]\nhost_ports = [" << port << "]\n";
    auto with = run_in_oms(w, expand(w, script));
    INFO(with.out << with.err);
    CHECK(lines_starting(with.out, "OK echo bytes=100").size() == 1);
    CHECK(host.accepted() == 1);

    // A worktree's config may not name one: a config error, nothing runs.
    write_file(w.work + "/.oms/config.toml", "[plugin.network]\nhost_ports = [5432]\n");
    auto refused = run_in_oms(w, expand(w, "touch {work}/ran"));
    CHECK(refused.exit_code == 78);
    CHECK(refused.err.find("plugin.network.host_ports") != std::string::npos);
    CHECK_FALSE(exists(w.work + "/ran"));
}
