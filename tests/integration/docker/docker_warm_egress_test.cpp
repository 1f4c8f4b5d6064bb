// A warm container with [network] allow_hosts, through the real `oms run
// --sandbox docker`: each run's egress proxy has a port of its own, which the
// container's runner holds for that run's command alone, so the task's runs
// share one container (the port is no part of its identity) and a second
// run of the task never sweeps away the container a command still runs in.
// Before, every run got a new container, and the first command ended with
// exit 70 ("runner ended before the command did").
#include "docker_fixture.hpp"
#include "oms_user.hpp"
#include "static_http_server.hpp"

#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <future>
#include <thread>

using namespace oms::test;
using namespace oms::test::docker;

namespace {

bool has_line(const std::string& out, const std::string& line) {
    return ("\n" + out).find("\n" + line + "\n") != std::string::npos;
}

// The value after "NAME=" on a line of `out`, or empty.
std::string value_of(const std::string& out, const std::string& name) {
    const size_t at = ("\n" + out).find("\n" + name + "=");
    if (at == std::string::npos) return "";
    const size_t start = at + name.size() + 1;
    return out.substr(start, out.find('\n', start) - start);
}

bool wait_for_file(const std::string& path, int seconds) {
    struct stat st;
    for (int i = 0; i < seconds * 20; ++i) {
        if (stat(path.c_str(), &st) == 0) return true;
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return false;
}

struct AllowedHost {
    StaticHttpServer server{std::map<std::string, std::string>{{"/hello", "HELLO-FROM-HOST\n"}}};
    std::string port = std::to_string(server.port());
    std::string url(const std::string& name) const { return "http://" + name + ":" + port + "/hello"; }
    // The [network] table: pkg.test allowed and pinned to the test server on the host's 127.0.0.1.
    std::string config() const {
        return "\n[network]\nallow_hosts = [\"pkg.test:" + port + "\"]\n"
               "pinned_addresses = { \"pkg.test\" = \"127.0.0.1\" }\n";
    }
};

}  // namespace

TEST_CASE("docker warm + allow_hosts: the task's runs share one container, each through its own proxy",
          "[docker][network][egress]") {
    require_daemon();
    AllowedHost host;
    OmsUser u(true);
    write_file(u.config_file, u.config + host.config());
    const std::string script = "echo host=$(cat /proc/sys/kernel/hostname); echo proxy=$http_proxy; "
                               "wget -q -O - " + host.url("pkg.test") + "; echo allowed=$?; "
                               "wget -q -O - " + host.url("other.test") + "; echo other=$?";
    ProcessResult first = u.oms({"run", "--", "sh", "-c", script});
    INFO(first.out << first.err);
    REQUIRE(first.exit_code == 0);
    ProcessResult second = u.oms({"run", "--", "sh", "-c", script});
    INFO(second.out << second.err);
    REQUIRE(second.exit_code == 0);
    for (const ProcessResult* r : {&first, &second}) {
        CHECK(has_line(r->out, "HELLO-FROM-HOST"));  // through the proxy (positive control)
        CHECK(has_line(r->out, "allowed=0"));
        CHECK(has_line(r->out, "other=1"));  // a name not on the list is refused
    }
    // Two proxies, two ports, one container.
    CHECK(value_of(first.out, "proxy") != value_of(second.out, "proxy"));
    REQUIRE_FALSE(value_of(first.out, "host").empty());
    CHECK(value_of(first.out, "host") == value_of(second.out, "host"));
    CHECK(docker_cli({"ps", "-q", "--filter", "label=oms.worktree=" + u.worktree}).out.size() == 13);  // one id
    CHECK(host.server.requests().size() == 2);
    // The first run's port is held no longer: a later command finds nothing on it.
    const std::string first_port = value_of(first.out, "proxy").substr(std::string("http://127.0.0.1:").size());
    ProcessResult later = u.oms({"run", "--", "sh", "-c",
                                 "wget -q -Y off -O - http://127.0.0.1:" + first_port + "/hello; echo stale=$?"});
    INFO(later.out << later.err);
    CHECK(has_line(later.out, "stale=1"));
    CHECK(host.server.requests().size() == 2);
    u.oms({"task", "end"});
}

TEST_CASE("docker warm + allow_hosts: a second run of the task leaves a running command and its proxy alone",
          "[docker][network][egress]") {
    require_daemon();
    AllowedHost host;
    OmsUser u(true);
    write_file(u.config_file, u.config + host.config());
    REQUIRE(u.oms({"run", "--", "true"}).exit_code == 0);  // the container exists before the two runs meet
    const std::string started = u.worktree + "/started";
    auto long_run = std::async(std::launch::async, [&] {
        return u.oms({"run", "--", "sh", "-c",
                      "touch started; sleep 6; wget -q -O - " + host.url("pkg.test") + "; echo late=$?"});
    });
    REQUIRE(wait_for_file(started, 120));
    ProcessResult second = u.oms({"run", "--", "sh", "-c", "wget -q -O - " + host.url("pkg.test") + "; echo second=$?"});
    INFO(second.out << second.err);
    CHECK(second.exit_code == 0);
    CHECK(has_line(second.out, "second=0"));
    ProcessResult first = long_run.get();
    INFO(first.out << first.err);
    CHECK(first.exit_code == 0);  // was 70: its container swept away by the second run
    CHECK(has_line(first.out, "HELLO-FROM-HOST"));
    CHECK(has_line(first.out, "late=0"));
    CHECK(host.server.requests().size() == 2);
    u.oms({"task", "end"});
}
