// network: the loopback ports and the Surfpool listen rule, config narrowing,
// and port validation messages.
#include "network.hpp"
#include "policy_test_support.hpp"

#include <catch2/catch.hpp>

using namespace oms::test;
using oms::policies::Network;

namespace {

std::string connect(int64_t port, const std::string& reason) {
    return rule(OMS_RULE_NET_CONNECT_LOOPBACK, "", "network: " + reason, port);
}
std::string listen(const std::string& binary) {
    return rule(OMS_RULE_NET_LISTEN_LOOPBACK, binary, "network: trusted Surfpool binary", 0);
}

struct Fixture {
    TempDir tmp{"oms-network"};
    FakeHost host;
    ContextBuilder context;
    std::string T = tmp.path();
    std::string surfpool = T + "/tools/surfpool";
    Fixture() {
        make_executable(surfpool);
        make_dirs(T + "/home");
        make_dirs(T + "/work");
        context.home = T + "/home";
        context.worktree = T + "/work";
    }
    Outcome run() { return run_policy<Network>(host, context); }
};

}  // namespace

TEST_CASE("network allows only the Surfnet port without a trusted Surfpool") {
    Fixture f;
    const Outcome out = f.run();
    REQUIRE(out.status == OMS_OK);
    CHECK(out.rules == std::vector<std::string>{connect(8899, "Surfnet port")});
}

TEST_CASE("network adds Surfpool's ports and its listen rule when oms passes the binary") {
    Fixture f;
    SECTION("the binary's path as given") {
        f.context.surfpool = f.surfpool;
        const Outcome out = f.run();
        REQUIRE(out.status == OMS_OK);
        CHECK(out.rules == std::vector<std::string>{connect(8899, "Surfnet port"), connect(8900, "Surfpool port"),
                                                    connect(9900, "Surfpool port"), listen(f.surfpool)});
    }
    SECTION("a symlink to the binary: the listen rule names the real file") {
        make_symlink(f.surfpool, f.T + "/bin/surfpool");
        f.context.surfpool = f.T + "/bin/surfpool";
        const Outcome out = f.run();
        REQUIRE(out.status == OMS_OK);
        CHECK(out.rules.back() == listen(f.surfpool));
    }
}

TEST_CASE("network honours surfnet_port, surfpool_ports and deny_ports") {
    Fixture f;
    f.context.surfpool = f.surfpool;
    SECTION("another Surfnet port comes first, Surfpool's follow") {
        f.host.integers["surfnet_port"] = 18899;
        const Outcome out = f.run();
        REQUIRE(out.status == OMS_OK);
        CHECK(out.rules == std::vector<std::string>{connect(18899, "Surfnet port"), connect(8899, "Surfpool port"),
                                                    connect(8900, "Surfpool port"), connect(9900, "Surfpool port"),
                                                    listen(f.surfpool)});
    }
    SECTION("deny_ports removes ports") {
        f.host.integer_arrays["deny_ports"] = {8900, 1234};
        const Outcome out = f.run();
        REQUIRE(out.status == OMS_OK);
        CHECK(out.rules == std::vector<std::string>{connect(8899, "Surfnet port"), connect(9900, "Surfpool port"),
                                                    listen(f.surfpool)});
    }
    SECTION("every port denied: nothing to reach, nothing to listen on") {
        f.host.integer_arrays["deny_ports"] = {8899, 8900, 9900};
        const Outcome out = f.run();
        REQUIRE(out.status == OMS_OK);
        CHECK(out.rules.empty());
    }
    SECTION("surfpool_ports replaces the default list, repeats dropped") {
        f.host.integer_arrays["surfpool_ports"] = {8899, 7000, 7000};
        const Outcome out = f.run();
        REQUIRE(out.status == OMS_OK);
        CHECK(out.rules == std::vector<std::string>{connect(8899, "Surfnet port"), connect(7000, "Surfpool port"),
                                                    listen(f.surfpool)});
    }
}

TEST_CASE("network refuses ports outside 1..65535, naming the key") {
    Fixture f;
    f.context.surfpool = f.surfpool;
    std::string expected;
    SECTION("surfnet_port") {
        f.host.integers["surfnet_port"] = 70000;
        expected = "[plugin.network] surfnet_port: 70000 is not a TCP port (1..65535)";
    }
    SECTION("surfpool_ports") {
        f.host.integer_arrays["surfpool_ports"] = {8900, 0};
        expected = "[plugin.network] surfpool_ports: 0 is not a TCP port (1..65535)";
    }
    SECTION("deny_ports") {
        f.host.integer_arrays["deny_ports"] = {-1};
        expected = "[plugin.network] deny_ports: -1 is not a TCP port (1..65535)";
    }
    const Outcome out = f.run();
    CHECK(out.status == OMS_ERR_INVALID);
    CHECK(out.error == expected);
    CHECK(out.rules.empty());
}

TEST_CASE("network accepts the edges of the port range") {
    Fixture f;
    f.host.integers["surfnet_port"] = 65535;
    f.host.integer_arrays["deny_ports"] = {1};
    const Outcome out = f.run();
    REQUIRE(out.status == OMS_OK);
    CHECK(out.rules == std::vector<std::string>{connect(65535, "Surfnet port")});
}

TEST_CASE("the built oms-network.so exports the same plugin") {
    LoadedPlugin plugin(OMS_PLUGIN_FILE);
    CHECK(std::string(plugin.descriptor().id) == "network");
    CHECK(std::string(plugin.descriptor().kind) == OMS_KIND_POLICY);
    CHECK(plugin.key_summary() ==
          std::vector<std::string>{"surfnet_port", "surfpool_ports", "host_ports", "deny_ports (narrows)"});
    Fixture f;
    f.context.surfpool = f.surfpool;
    const Outcome out = plugin.contribute(f.host, f.context);
    REQUIRE(out.status == OMS_OK);
    CHECK(out.rules == std::vector<std::string>{connect(8899, "Surfnet port"), connect(8900, "Surfpool port"),
                                                connect(9900, "Surfpool port"), listen(f.surfpool)});
}
