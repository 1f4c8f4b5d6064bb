// What the sandbox itself refused, in the run's refusals: through the real
// `oms run`, a connect to a host listener the run does not relay (refused on
// the private loopback, seen by the run's init) and a name lookup (answered
// "no such host" by the run's resolver) appear in the one-line summary and
// in `oms explain --last` with address, port and rule; the relayed Surfnet
// port and /etc/hosts' localhost, which work, do not (getent asks the
// resolver for localhost's IPv6 address first, which is no refusal). While the run lasts
// the refusals are in the run folder's file already.
#include "landlock_sandbox.hpp"
#include "loopback_port.hpp"
#include "static_http_server.hpp"
#include "test_support.hpp"

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include <unistd.h>

using namespace oms::test;

namespace {

void relay_surfnet_port(World& w, uint16_t port) {
    write_file(w.root / "xdg-config/oms/config.toml", "[plugin.network]\nsurfnet_port = " + std::to_string(port) + "\n");
}

RunOutcome explain_last(World& w, bool json = false) {
    std::vector<std::string> args{oms_binary(), "explain", "--last"};
    if (json) args.push_back("--json");
    auto result = run_process(args, {oms_world_env(w), std::nullopt, w.work, 60});
    return RunOutcome{OMS_OK, "", result.exit_code, result.out, result.err};
}

// Whole, to its last word: the refusal log keeps 200 bytes of a rule.
const std::string kNotRelayed =
    "nothing listens there: the sandbox's loopback reaches the host only on the allowed local ports "
    "([plugin.network] surfnet_port, host_ports) and through oms's proxy ([network] allow_hosts)";
const std::string kNoSuchHost = "answered \"no such host\": the sandbox resolves no name";

}  // namespace

TEST_CASE("refusals: a loopback port the run does not relay and a name lookup are reported; what works is not",
          "[landlock][network][refusals]") {
    require_landlock();
    REQUIRE(oms_run_available());
    StaticHttpServer surfnet(std::map<std::string, std::string>{{"/hello", "SURFNET\n"}});  // relayed: the control
    StaticHttpServer other(std::map<std::string, std::string>{{"/hello", "OTHER\n"}});      // on the host, not relayed
    const std::string s = std::to_string(surfnet.port()), o = std::to_string(other.port());
    World w;
    relay_surfnet_port(w, surfnet.port());
    auto r = run_in_oms(w, "curl -sS http://127.0.0.1:" + s + "/hello; echo relayed=$?; "
                           "curl -sS http://127.0.0.1:" + o + "/hello; echo other=$?; "
                           "getent hosts localhost >/dev/null; echo localhost=$?; "
                           "getent hosts nosuch.test; echo lookup=$?");
    INFO(r.out << r.err);
    REQUIRE(r.exit_code == 0);
    CHECK(lines_starting(r.out, "SURFNET").size() == 1);
    CHECK(lines_starting(r.out, "relayed=0").size() == 1);
    CHECK(lines_starting(r.out, "other=7").size() == 1);
    CHECK(other.requests().empty());
    CHECK(lines_starting(r.out, "localhost=0").size() == 1);
    CHECK(lines_starting(r.out, "lookup=2").size() == 1);

    const auto summary = lines_starting(r.err, "oms: network: 1 connection refused, 1 name lookup refused: ");
    REQUIRE(summary.size() == 1);
    CHECK_THAT(summary[0], Catch::Contains("127.0.0.1:" + o + " (" + kNotRelayed + ")"));
    CHECK_THAT(summary[0], Catch::Contains("nosuch.test (" + kNoSuchHost));
    CHECK_THAT(summary[0], !Catch::Contains(":" + s + " "));
    CHECK_THAT(summary[0], !Catch::Contains("localhost"));

    auto last = explain_last(w);
    INFO(last.out << last.err);
    CHECK_THAT(last.out, Catch::Contains("refused: 2"));
    CHECK_THAT(last.out, Catch::Contains("  127.0.0.1:" + o + "  " + kNotRelayed));
    CHECK_THAT(last.out, Catch::Contains("(loopback)"));
    CHECK_THAT(last.out, Catch::Contains("  nosuch.test  " + kNoSuchHost));
    CHECK_THAT(last.out, Catch::Contains("(resolver)"));
    auto json = explain_last(w, true);
    CHECK_THAT(json.out, Catch::Contains("{\"host\":\"nosuch.test\",\"port\":0,"));
    CHECK_THAT(json.out, Catch::Contains("{\"host\":\"127.0.0.1\",\"port\":" + o + ","));
}

TEST_CASE("refusals: a connect to ::1 and a lookup of an IPv6 address alone are reported; localhost's is not",
          "[landlock][network][refusals][ipv6]") {
    require_landlock();
    REQUIRE(oms_run_available());
    StaticHttpServer surfnet(std::map<std::string, std::string>{{"/hello", "SURFNET\n"}});  // relayed: the control
    const std::string s = std::to_string(surfnet.port());
    World w;
    relay_surfnet_port(w, surfnet.port());
    auto r = run_in_oms(w, "curl -sS http://127.0.0.1:" + s + "/hello; echo relayed=$?; "
                           "curl -sS 'http://[::1]:4321/'; echo v6=$?; "
                           "curl -6 -sS http://v6only.test/; echo aaaa=$?; "
                           "getent ahostsv6 localhost >/dev/null; echo localhost=$?");
    INFO(r.out << r.err);
    REQUIRE(r.exit_code == 0);
    CHECK(lines_starting(r.out, "relayed=0").size() == 1);  // positive: the relayed port works
    CHECK(lines_starting(r.out, "v6=7").size() == 1);        // connection refused
    CHECK(lines_starting(r.out, "aaaa=6").size() == 1);      // could not resolve host
    CHECK(lines_starting(r.out, "localhost=0").size() == 1);

    const auto summary = lines_starting(r.err, "oms: network: 1 connection refused, 1 name lookup refused: ");
    REQUIRE(summary.size() == 1);
    CHECK_THAT(summary[0], Catch::Contains("[::1]:4321 (" + kNotRelayed));
    CHECK_THAT(summary[0], Catch::Contains("v6only.test (" + kNoSuchHost));
    CHECK_THAT(summary[0], !Catch::Contains("localhost"));
    auto json = explain_last(w, true);
    CHECK_THAT(json.out, Catch::Contains("{\"host\":\"::1\",\"port\":4321,"));
}

TEST_CASE("refusals: connects off the sandbox's loopback are reported with their address; the relayed port is not",
          "[landlock][network][refusals]") {
    require_landlock();
    REQUIRE(oms_run_available());
    StaticHttpServer surfnet(std::map<std::string, std::string>{{"/hello", "SURFNET\n"}});  // relayed: the control
    const std::string s = std::to_string(surfnet.port());
    World w;
    relay_surfnet_port(w, surfnet.port());
    // Addresses of the documentation ranges: never anyone's. bash's
    // /dev/udp connects a datagram socket.
    auto r = run_in_oms(w, "curl -sS http://127.0.0.1:" + s + "/hello; echo relayed=$?; "
                           "curl -sS http://192.0.2.1:8080/; echo v4=$?; "
                           "curl -sS 'http://[2001:db8::1]:8443/'; echo v6=$?; "
                           "curl -sS http://192.0.2.1:8080/; echo again=$?; "
                           "bash -c 'echo x > /dev/udp/198.51.100.2/5353'; echo udp=$?");
    INFO(r.out << r.err);
    REQUIRE(r.exit_code == 0);
    CHECK(lines_starting(r.out, "SURFNET").size() == 1);
    CHECK(lines_starting(r.out, "relayed=0").size() == 1);
    // The kernel's answer is unchanged by the watch: no route.
    CHECK(lines_starting(r.out, "v4=7").size() == 1);
    CHECK(lines_starting(r.out, "v6=7").size() == 1);
    CHECK(lines_starting(r.out, "again=7").size() == 1);
    CHECK(lines_starting(r.out, "udp=1").size() == 1);
    CHECK_THAT(r.err, Catch::Contains("Network is unreachable"));

    const std::string rule = "off the sandbox's loopback: the sandbox has no route to other hosts";
    // The same address and port twice: once.
    const auto summary = lines_starting(r.err, "oms: network: 3 connections refused: ");
    REQUIRE(summary.size() == 1);
    CHECK_THAT(summary[0], Catch::Contains("192.0.2.1:8080 (" + rule));
    CHECK_THAT(summary[0], Catch::Contains("[2001:db8::1]:8443 (" + rule));
    CHECK_THAT(summary[0], Catch::Contains("198.51.100.2:5353 (" + rule));
    CHECK_THAT(summary[0], !Catch::Contains(":" + s + " "));
    auto last = explain_last(w);
    INFO(last.out << last.err);
    CHECK_THAT(last.out, Catch::Contains("refused: 3"));
    CHECK_THAT(last.out, Catch::Contains("  192.0.2.1:8080  " + rule));
    CHECK_THAT(last.out, Catch::Contains("(route)"));
    auto json = explain_last(w, true);
    CHECK_THAT(json.out, Catch::Contains("{\"host\":\"2001:db8::1\",\"port\":8443,"));
}

// The connect watch takes the one seccomp listener the kernel allows a
// process: with it (the default) a command cannot make a listener of its
// own; report_connects = false gives it back and reports no such connect.
TEST_CASE("refusals: report_connects = false lets a command have its own seccomp listener; connects go unreported",
          "[landlock][network][refusals]") {
    require_landlock();
    REQUIRE(oms_run_available());
    World w;
    const std::string command = expand(w, "{probe} seccomp-listener; curl -sS http://192.0.2.1:8080/; echo v4=$?");
    auto watched = run_in_oms(w, command);
    INFO(watched.out << watched.err);
    CHECK(lines_starting(watched.out, "DENIED seccomp-listener EBUSY").size() == 1);
    CHECK_THAT(watched.err, Catch::Contains("oms: network: 1 connection refused: 192.0.2.1:8080"));

    write_file(w.root / "xdg-config/oms/config.toml", "[plugin.landlock]\nreport_connects = false\n");
    auto unwatched = run_in_oms(w, command);
    INFO(unwatched.out << unwatched.err);
    CHECK(lines_starting(unwatched.out, "OK seccomp-listener").size() == 1);
    CHECK(lines_starting(unwatched.out, "v4=7").size() == 1);  // refused all the same
    CHECK(unwatched.err.find("oms: network:") == std::string::npos);
}

TEST_CASE("refusals: a relayed port with no host listener is reported as such; a run refused nothing reports nothing",
          "[landlock][network][refusals]") {
    require_landlock();
    REQUIRE(oms_run_available());
    World w;
    const ClosedLoopbackPort closed;  // nothing listens on the host's port for the whole test
    const uint16_t idle = closed.port();
    relay_surfnet_port(w, idle);
    auto r = run_in_oms(w, "curl -sS http://127.0.0.1:" + std::to_string(idle) + "/; echo relayed=$?");
    INFO(r.out << r.err);
    CHECK(lines_starting(r.out, "relayed=7").size() == 1);
    CHECK_THAT(r.err, Catch::Contains("oms: network: 1 connection refused: 127.0.0.1:" + std::to_string(idle) +
                                      " (relayed, but refused: nothing listened on the host's port (or the relay held all its connections))"));

    // The control: the same port answered, nothing looked up.
    StaticHttpServer surfnet(std::map<std::string, std::string>{{"/hello", "SURFNET\n"}});
    relay_surfnet_port(w, surfnet.port());
    auto quiet = run_in_oms(w, "curl -sS http://127.0.0.1:" + std::to_string(surfnet.port()) + "/hello");
    INFO(quiet.out << quiet.err);
    CHECK(quiet.out == "SURFNET\n");
    CHECK(quiet.err.find("oms: network:") == std::string::npos);
    CHECK_THAT(explain_last(w).out, Catch::Contains("refused: 0"));
}

TEST_CASE("refusals: written to the run folder's file while the run lasts, gone with the folder",
          "[landlock][network][refusals]") {
    require_landlock();
    REQUIRE(oms_run_available());
    World w;
    // The user's one folder of run folders, shared with other tests' runs.
    const std::string run_folders = "/tmp/oms-runs-" + std::to_string(geteuid());
    // The command looks a name up, then waits for the test to say it may end.
    RunOutcome r;
    std::thread run([&] {
        r = run_in_oms(w,
                       "getent hosts live.test; i=0; while [ ! -e done ] && [ $i -lt 300 ]; do sleep 0.1; "
                       "i=$((i+1)); done; echo waited=$i");
    });
    std::string seen, folder;
    for (int i = 0; i < 200 && seen.empty(); ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        std::error_code error;  // other runs' folders come and go meanwhile
        for (std::filesystem::directory_iterator it(run_folders, error), end; !error && it != end;
             it.increment(error)) {
            std::ifstream file(it->path().string() + "/refusals");
            std::stringstream text;
            text << file.rdbuf();
            if (text.str().find("live.test") == std::string::npos) continue;
            folder = it->path().string();
            // The refusals: the hidden-file notices beside them are another test's.
            for (std::string line; std::getline(text, line);)
                if (line.rfind("refused\thidden\t", 0) != 0) seen += line + "\n";
        }
    }
    write_file(w.work + "/done", "");
    run.join();
    INFO(r.out << r.err);
    CHECK(seen == "refused\tresolver\tlive.test\t0\t" + kNoSuchHost +
                      " (a host in [network] allow_hosts is reached through oms's proxy, which resolves it)\n");
    CHECK(lines_starting(r.out, "waited=").size() == 1);
    CHECK(lines_starting(r.out, "waited=300").empty());  // it was still running when the line was read
    CHECK_THAT(r.err, Catch::Contains("1 name lookup refused: live.test"));
    REQUIRE_FALSE(folder.empty());
    CHECK_FALSE(std::filesystem::exists(folder));  // the run folder, and its file, are gone
}

TEST_CASE("refusals: a UDP datagram to a loopback port where nothing listens is reported; one a server takes is not",
          "[landlock][network][refusals]") {
    require_landlock();
    REQUIRE(oms_run_available());
    World w;
    // Python's socket module: sh has no UDP of its own. A server in the run
    // takes port 7001; 7002 has none.
    const std::string script = R"SH(
python3 - <<'PY'
import socket, time
server = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
server.bind(("127.0.0.1", 7001))
client = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
client.sendto(b"taken", ("127.0.0.1", 7001))
print("got", server.recvfrom(16)[0].decode())
client.sendto(b"nobody", ("127.0.0.1", 7002))
time.sleep(0.2)
print("sent")
PY
)SH";
    auto r = run_in_oms(w, script);
    INFO(r.out << r.err);
    REQUIRE(r.exit_code == 0);
    CHECK(lines_starting(r.out, "got taken").size() == 1);  // the control: a datagram a server takes
    CHECK(lines_starting(r.out, "sent").size() == 1);
    const auto summary = lines_starting(r.err, "oms: network: 1 connection refused: ");
    REQUIRE(summary.size() == 1);
    CHECK_THAT(summary[0], Catch::Contains("127.0.0.1:7002 (a UDP datagram, and nothing listens there"));
    CHECK_THAT(summary[0], !Catch::Contains(":7001"));
}

TEST_CASE("refusals: the failure line after a refused connect points at it, short, naming no variable",
          "[landlock][network][refusals]") {
    require_landlock();
    REQUIRE(oms_run_available());
    const ClosedLoopbackPort closed;
    World w;
    const std::vector<std::string> caller_env{"PYTHONPATH=src"};  // dropped: a variable the line could name
    auto refused = run_in_oms(w, "curl -sS http://127.0.0.1:" + std::to_string(closed.port()) + "/", caller_env);
    INFO(refused.out << refused.err);
    CHECK(refused.exit_code == 7);
    CHECK(lines_starting(refused.err, "oms: network: 1 connection refused: 127.0.0.1:").size() == 1);
    const auto hint = lines_starting(refused.err, "oms: exit 7 under the landlock sandbox");
    REQUIRE(hint.size() == 1);
    CHECK(hint[0] == "oms: exit 7 under the landlock sandbox; see the refusal above "
                     "(--quiet or [sandbox] failure_hint = false silences this line)");

    // The control: a failure with nothing refused names the variable.
    auto plain = run_in_oms(w, "exit 3", caller_env);
    INFO(plain.err);
    CHECK(plain.exit_code == 3);
    const auto plain_hint = lines_starting(plain.err, "oms: exit 3 under the landlock sandbox; ");
    REQUIRE(plain_hint.size() == 1);
    CHECK_THAT(plain_hint[0], Catch::Contains("not passed from your environment: ") && Catch::Contains("PYTHONPATH"));
}
