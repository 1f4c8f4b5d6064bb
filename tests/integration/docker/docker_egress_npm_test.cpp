// npm install in docker mode through oms's egress proxy, through the real
// `oms run --sandbox docker --allow-host`, one-shot and warm, in the node test
// image (tests/docker/build-node-test-image.sh: the host's node and npm): a
// package served by a one-package registry on the host's 127.0.0.1 under a
// pinned name installs and loads; npm asking a host not on the list is
// refused and the refusal is in the summary line and `oms explain --last`;
// node connecting to the registry's port directly (no proxy) is refused.
#include "docker_fixture.hpp"
#include "npm_test_registry.hpp"
#include "oms_user.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>

using namespace oms::test;
using namespace oms::test::docker;

namespace {

bool has_line(const std::string& out, const std::string& line) {
    return ("\n" + out).find("\n" + line + "\n") != std::string::npos;
}

// node's own http client, no proxy: "direct=<error code>" or "direct=reached".
std::string direct_get(const std::string& url) {
    return "node -e 'require(\"http\").get(\"" + url +
           "\", () => console.log(\"direct=reached\")).on(\"error\", e => console.log(\"direct=\" + e.code))'";
}

}  // namespace

TEST_CASE("docker: npm install through oms's proxy from a pinned local registry; other hosts and bypasses refused",
          "[docker][network][egress][npm]") {
    require_daemon();
    const bool warm = GENERATE(false, true);
    CAPTURE(warm);
    OmsUser u(warm, "", node_test_image());
    NpmTestRegistry registry(u.root / "npm", "pkg.test");
    registry.write_project(u.worktree);
    const std::string port = std::to_string(registry.port());
    write_file(u.config_file, u.config + "\n[network]\npinned_addresses = { \"pkg.test\" = \"127.0.0.1\" }\n");
    const std::string script = "npm install; echo npm=$?; "
                               "node -e 'console.log(require(\"tiny-pkg\"))'; "
                               "npm view --registry http://other.test:" + port + "/ tiny-pkg version; echo other=$?; " +
                               direct_get("http://127.0.0.1:" + port + "/tiny-pkg");
    ProcessResult r = u.oms({"run", "--sandbox", "docker", "--allow-host", "pkg.test:" + port, "--", "sh", "-c", script});
    INFO(r.out << r.err);
    REQUIRE(r.exit_code == 0);
    CHECK(has_line(r.out, "npm=0"));
    CHECK(has_line(r.out, "TINY-PKG-LOADED"));
    CHECK(read_file(u.worktree + "/node_modules/tiny-pkg/index.js") == NpmTestRegistry::kIndexJs);
    const auto requests = registry.server().requests();
    CHECK(std::count(requests.begin(), requests.end(), registry.tarball_request()) == 1);
    // Refused by the proxy: npm gets a 403 and fails.
    CHECK(has_line(r.out, "other=1"));
    // Around the proxy: nothing listens on the container's own loopback.
    CHECK(has_line(r.out, "direct=ECONNREFUSED"));
    // Only what went through the proxy for pkg.test reached the registry.
    for (const std::string& request : requests) CHECK_THAT(request, Catch::EndsWith("host=pkg.test:" + port));
    CHECK_THAT(r.err, Catch::Contains("oms: network: "));
    CHECK_THAT(r.err, Catch::Contains("other.test:" + port + " (not in allow_hosts)"));
    ProcessResult last = u.oms({"explain", "--last"});
    INFO(last.out << last.err);
    CHECK_THAT(last.out, Catch::Contains("  other.test:" + port + "  not in allow_hosts  (egress-proxy)"));
    CHECK_THAT(last.out, Catch::Contains("backend: docker"));
    if (warm) u.oms({"task", "end"});
}

TEST_CASE("docker: without --allow-host npm cannot reach the pinned registry (the control)",
          "[docker][network][egress][npm]") {
    require_daemon();
    OmsUser u(false, "", node_test_image());
    NpmTestRegistry registry(u.root / "npm", "pkg.test");
    registry.write_project(u.worktree);
    write_file(u.config_file, u.config + "\n[network]\npinned_addresses = { \"pkg.test\" = \"127.0.0.1\" }\n");
    ProcessResult r = u.oms({"run", "--sandbox", "docker", "--", "sh", "-c", "npm install; echo npm=$?"});
    INFO(r.out << r.err);
    CHECK(has_line(r.out, "npm=1"));
    CHECK_THAT(r.err, Catch::Contains("ENOTFOUND pkg.test"));
    CHECK_FALSE(std::filesystem::exists(u.worktree + "/node_modules/tiny-pkg"));
    CHECK(registry.server().requests().empty());
}
