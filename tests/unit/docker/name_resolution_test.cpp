// The container's resolver: with network none the sandbox's resolv.conf is
// bound at /etc/resolv.conf and the runner answers DNS; a named network keeps
// Docker's resolver. The host file holds exactly the shared text.
#include "container_plan.hpp"
#include "name_resolution.hpp"

#include <oms/dns_responder.hpp>

#include "temp_dir.hpp"

#include <catch2/catch.hpp>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>

using namespace oms::docker;
using namespace oms::test;
using Args = std::vector<std::string>;

namespace {

struct Inputs {
    TempDir root{"oms-docker-dns"};
    RunInputs in;
    Settings settings;
    Inputs() {
        make_dirs(root / "wt");
        in.worktree = root / "wt";
        in.state_dir = root / "state";  // the private HOME is left out: nothing of it is needed here
        in.argv = {"true"};
    }
    ContainerPlan plan(Mode mode) {
        return plan_container(settings, "sha256:" + std::string(64, 'b'), "1000:1000", in, mode, "/var/run/docker.sock");
    }
};

long count(const Args& items, const std::string& item) { return std::count(items.begin(), items.end(), item); }

}  // namespace

TEST_CASE("resolver: network none binds the sandbox's resolv.conf and asks the runner to answer and watch connects") {
    Inputs t;
    const std::string bind = "--mount=type=bind,source=" + t.root / "state/docker/resolv.conf" +
                             ",target=/etc/resolv.conf,readonly";
    for (Mode mode : {Mode::OneShot, Mode::Warm}) {
        ContainerPlan plan = t.plan(mode);
        CHECK(count(plan.flags, bind) == 1);
        CHECK(plan.runner_args == Args{"--answer-dns", "--watch-connects"});
    }
    t.settings.report_connects = false;  // [plugin.docker] report_connects = false: no watch
    CHECK(t.plan(Mode::OneShot).runner_args == Args{"--answer-dns"});
    t.settings.report_connects = true;
    t.settings.network = "oms-net";  // a chosen network keeps Docker's resolver
    ContainerPlan bridged = t.plan(Mode::OneShot);
    CHECK(count(bridged.flags, bind) == 0);
    CHECK(bridged.runner_args.empty());
    t.settings.network = "none";
    t.in.state_dir.clear();
    CHECK_THROWS_WITH(t.plan(Mode::OneShot), Catch::Contains("the container's resolver needs oms's state folder"));
}

TEST_CASE("resolver: the host file holds exactly the shared text, 0644, whatever was there") {
    Inputs t;
    write_resolv_conf(t.in.state_dir);
    const std::string file = resolv_conf_file(t.in.state_dir);
    CHECK(read_file(file) == oms::dns_responder::kSandboxResolvConf);
    struct stat st;
    REQUIRE(lstat(file.c_str(), &st) == 0);
    CHECK((st.st_mode & 0777) == 0644);
    CHECK((lstat((t.in.state_dir + "/docker").c_str(), &st) == 0 && (st.st_mode & 0777) == 0700));
    // Changed, or a link in its place: written anew, nothing written through the link.
    write_file(file, "nameserver 10.0.0.1\n");
    write_resolv_conf(t.in.state_dir);
    CHECK(read_file(file) == oms::dns_responder::kSandboxResolvConf);
    const std::string elsewhere = t.root / "elsewhere";
    write_file(elsewhere, "kept\n");
    REQUIRE(unlink(file.c_str()) == 0);
    REQUIRE(symlink(elsewhere.c_str(), file.c_str()) == 0);
    write_resolv_conf(t.in.state_dir);
    REQUIRE(lstat(file.c_str(), &st) == 0);
    CHECK(S_ISREG(st.st_mode));
    CHECK(read_file(elsewhere) == "kept\n");
}

TEST_CASE("resolver: the plan says who answers name lookups") {
    Settings settings;
    CHECK_THAT(resolver_line(settings), Catch::Contains("the runner (--answer-dns) answers every lookup \"no such host\""));
    settings.network = "bridge";
    CHECK(resolver_line(settings) == "# names: network bridge keeps Docker's resolver");
}
