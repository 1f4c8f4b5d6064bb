// What oms's end of the docker relay refused, in the run's refusals: through
// the real `oms run --sandbox docker`, one-shot and warm, a command speaking
// the relay's protocol on relay.sock itself and asking for a port the run
// does not relay is refused, and the refusal is in the summary line and
// `oms explain --last` with port and rule; asking for the relayed Surfnet
// port (the control) works and is not reported. A relayed port with no
// host listener is reported with that rule; with a listener it is not.
#include "docker_fixture.hpp"
#include "marker_listener.hpp"
#include "oms_user.hpp"
#include "loopback_port.hpp"
#include "static_http_server.hpp"

#include <catch2/catch.hpp>

#include <cstring>
#include <map>

#include <sys/stat.h>
#include <unistd.h>

#include <csignal>
#include <cstdlib>

#include <filesystem>
#include <future>

using namespace oms::test;
using namespace oms::test::docker;

using oms::test::shell_wait_for;

namespace {

bool has_line_starting(const std::string& out, const std::string& prefix) {
    return out.rfind(prefix, 0) == 0 || out.find("\n" + prefix) != std::string::npos;
}

// The static network probe in the worktree, where the container sees it.
std::string probe_in(const OmsUser& u) {
    const std::string copy = u.worktree + "/net_probe";
    std::filesystem::copy_file(OMS_NET_PROBE, copy, std::filesystem::copy_options::overwrite_existing);
    chmod(copy.c_str(), 0755);
    if (geteuid() == 0 && chown(copy.c_str(), container_uid(), container_uid()) != 0) FAIL("chown failed");
    return copy;
}

}  // namespace

TEST_CASE("docker: a port asked of relay.sock that the run does not relay is refused and reported",
          "[docker][network][refusals]") {
    require_daemon();
    const bool warm = GENERATE(false, true);
    CAPTURE(warm);
    MarkerListener surfnet;                                           // relayed: the control
    StaticHttpServer other(std::map<std::string, std::string>{});    // on the host, not relayed
    const std::string s = std::to_string(surfnet.port()), o = std::to_string(other.port());
    OmsUser u(warm);
    write_file(u.config_file, u.config + "\n[plugin.network]\nsurfnet_port = " + s + "\n");
    const std::string probe = probe_in(u);
    ProcessResult r = u.oms({"run", "--", "sh", "-c",
                             probe + " relay-ask /.oms/sock/relay.sock " + s + " asked; " + probe +
                                 " relay-ask /.oms/sock/relay.sock " + o + " smuggled"});
    INFO(r.out << r.err);
    REQUIRE(r.exit_code == 0);
    CHECK(has_line_starting(r.out, "OK reply=hello-asked"));
    CHECK(has_line_starting(r.out, "DENIED status 1"));
    CHECK(other.requests().empty());
    CHECK_THAT(r.err, Catch::Contains("oms: network: 1 connection refused: 127.0.0.1:" + o +
                                      " (not a port this run relays (asked of relay.sock directly))"));
    CHECK_THAT(r.err, !Catch::Contains("127.0.0.1:" + s + " ("));
    ProcessResult last = u.oms({"explain", "--last"});
    INFO(last.out << last.err);
    CHECK_THAT(last.out, Catch::Contains("refused: 1"));
    CHECK_THAT(last.out, Catch::Contains("  127.0.0.1:" + o + "  not a port this run relays (asked of relay.sock "
                                         "directly)  (relay)"));
    if (warm) u.oms({"task", "end"});
}

TEST_CASE("docker: a relayed port with no host listener is reported as such", "[docker][network][refusals]") {
    require_daemon();
    const bool warm = GENERATE(false, true);
    CAPTURE(warm);
    const ClosedLoopbackPort closed;
    const uint16_t idle = closed.port();
    const std::string p = std::to_string(idle);
    OmsUser u(warm);
    write_file(u.config_file, u.config + "\n[plugin.network]\nsurfnet_port = " + p + "\n");
    const std::string probe = probe_in(u);
    ProcessResult r = u.oms({"run", "--", probe, "connect", "127.0.0.1", p, "x"});
    INFO(r.out << r.err);
    CHECK(has_line_starting(r.out, "DENIED"));
    CHECK_THAT(r.err, Catch::Contains("oms: network: 1 connection refused: 127.0.0.1:" + p +
                                      " (relayed, but nothing listened on the host's port)"));
    // The control: with a listener there, the same connect is carried and nothing is reported.
    MarkerListener surfnet;
    write_file(u.config_file, u.config + "\n[plugin.network]\nsurfnet_port = " + std::to_string(surfnet.port()) + "\n");
    if (warm) u.oms({"task", "end"});  // the relayed ports are part of a warm container's identity
    ProcessResult ok = u.oms({"run", "--", probe, "connect", "127.0.0.1", std::to_string(surfnet.port()), "x"});
    INFO(ok.out << ok.err);
    CHECK(has_line_starting(ok.out, "OK reply=hello-x"));
    CHECK_FALSE(has_line_starting(ok.out, "DENIED"));
    CHECK(ok.err.find("oms: network:") == std::string::npos);
    if (warm) u.oms({"task", "end"});
}

// With network "none" the kernel refuses a connect off the container's
// loopback (no route), or to a loopback port nothing listens on (a reset),
// without a packet anything inside may see; the runner watches its
// commands' connects (runner/command_connects.hpp) and oms reports each
// refused one once, one-shot (a line to lookups.sock) and warm (a frame).
// The relayed port, carried (the runner's relay listens there), is the
// control.
TEST_CASE("docker: connects off the container's loopback and to its closed ports are reported; the relayed port is not",
          "[docker][network][refusals]") {
    require_daemon();
    const bool warm = GENERATE(false, true);
    CAPTURE(warm);
    MarkerListener surfnet;  // relayed: the control
    const std::string s = std::to_string(surfnet.port());
    OmsUser u(warm);
    write_file(u.config_file, u.config + "\n[plugin.network]\nsurfnet_port = " + s + "\n");
    const std::string probe = probe_in(u);
    ProcessResult r = u.oms({"run", "--", "sh", "-c",
                             probe + " connect 127.0.0.1 " + s + " x; " + probe + " connect 192.0.2.1 8080 x; " +
                                 probe + " connect 2001:db8::1 8443 x; " + probe + " udp 198.51.100.2 5353; " +
                                 probe + " connect 192.0.2.1 8080 x; " + probe + " connect 127.0.0.1 4321 x"});
    INFO(r.out << r.err);
    REQUIRE(r.exit_code == 0);
    CHECK(has_line_starting(r.out, "OK reply=hello-x"));
    // The kernel's answer, unchanged by the watch: no route.
    CHECK(r.out.find("DENIED connect ENETUNREACH") != std::string::npos);
    CHECK(has_line_starting(r.out, "DENIED sendto ENETUNREACH"));
    CHECK(has_line_starting(r.out, "DENIED connect ECONNREFUSED"));
    const std::string rule = "off the container's loopback: with network \"none\" the container has no route";
    // The same address and port twice: once. A datagram sent with sendto is
    // not watched (each would pay a round trip to the runner).
    CHECK_THAT(r.err, Catch::Contains("oms: network: 3 connections refused: "));
    CHECK_THAT(r.err, Catch::Contains("192.0.2.1:8080 (" + rule));
    CHECK_THAT(r.err, Catch::Contains("[2001:db8::1]:8443 (" + rule));
    CHECK_THAT(r.err, Catch::Contains("127.0.0.1:4321 (nothing listens there: the container's loopback reaches the "
                                      "host only on the relayed ports"));
    CHECK_THAT(r.err, !Catch::Contains("198.51.100.2"));
    CHECK_THAT(r.err, !Catch::Contains("127.0.0.1:" + s + " ("));
    ProcessResult last = u.oms({"explain", "--last"});
    INFO(last.out << last.err);
    CHECK_THAT(last.out, Catch::Contains("refused: 3"));
    CHECK_THAT(last.out, Catch::Contains("  192.0.2.1:8080  " + rule));
    CHECK_THAT(last.out, Catch::Contains("(route)"));
    CHECK_THAT(last.out, Catch::Contains("(loopback)"));
    // The control: a run that connects only where it may reports nothing.
    ProcessResult quiet = u.oms({"run", "--", probe, "connect", "127.0.0.1", s, "y"});
    INFO(quiet.out << quiet.err);
    CHECK(has_line_starting(quiet.out, "OK reply=hello-y"));
    CHECK(quiet.err.find("oms: network:") == std::string::npos);
    if (warm) u.oms({"task", "end"});
}

// The connect watch takes the one seccomp listener the kernel allows a
// process; [plugin.docker] report_connects = false gives it back to the
// command, and reports no refused connect.
TEST_CASE("docker: report_connects = false lets a command have its own seccomp listener; connects go unreported",
          "[docker][network][refusals]") {
    require_daemon();
    const bool warm = GENERATE(false, true);
    CAPTURE(warm);
    OmsUser u(warm);
    const std::string probe = probe_in(u);
    const std::vector<std::string> command{"run", "--", "sh", "-c",
                                           probe + " seccomp-listener; " + probe + " connect 192.0.2.1 8080 x"};
    ProcessResult watched = u.oms(command);
    INFO(watched.out << watched.err);
    CHECK(has_line_starting(watched.out, "DENIED seccomp-listener EBUSY"));
    CHECK_THAT(watched.err, Catch::Contains("oms: network: 1 connection refused: 192.0.2.1:8080"));
    if (warm) u.oms({"task", "end"});

    write_file(u.config_file, u.config + "report_connects = false\n");
    ProcessResult unwatched = u.oms(command);
    INFO(unwatched.out << unwatched.err);
    CHECK(has_line_starting(unwatched.out, "OK seccomp-listener"));
    CHECK(unwatched.out.find("DENIED connect ENETUNREACH") != std::string::npos);  // refused all the same
    CHECK(unwatched.err.find("oms: network:") == std::string::npos);
    if (warm) u.oms({"task", "end"});
}

// The container's resolver answers every name "no such host"; a one-shot
// run's oms takes its refusals over lookups.sock (resolver_reports.hpp), a
// warm run's from the runner, which finds the command that asked
// (lookup_reports.hpp). busybox's nslookup asks the resolver itself; wget of
// localhost is answered by /etc/hosts (the control: not reported).
TEST_CASE("docker: a name the container's resolver refused is reported", "[docker][network][refusals]") {
    require_daemon();
    const bool warm = GENERATE(false, true);
    CAPTURE(warm);
    OmsUser u(warm);
    ProcessResult r = u.oms({"run", "--", "sh", "-c",
                             "wget -q -T1 -O- http://localhost:9/ >/dev/null 2>&1; "
                             "nslookup nosuch.test 2>&1; echo lookup=$?"});
    INFO(r.out << r.err);
    REQUIRE(r.exit_code == 0);
    CHECK_THAT(r.out, Catch::Contains("NXDOMAIN"));
    const std::string kNoSuchHost = "answered \"no such host\": the sandbox resolves no name";
    CHECK_THAT(r.err, Catch::Contains("oms: network: 1 name lookup refused: nosuch.test (" + kNoSuchHost));
    CHECK_THAT(r.err, !Catch::Contains("localhost"));
    ProcessResult last = u.oms({"explain", "--last"});
    INFO(last.out << last.err);
    CHECK_THAT(last.out, Catch::Contains("refused: 1"));
    CHECK_THAT(last.out, Catch::Contains("  nosuch.test  " + kNoSuchHost));
    CHECK_THAT(last.out, Catch::Contains("(resolver)"));
    // The control: a run that looks nothing up reports nothing.
    ProcessResult quiet = u.oms({"run", "--", "true"});
    CHECK(quiet.err.find("oms: network:") == std::string::npos);
    if (warm) u.oms({"task", "end"});
}

// The names in a refusal line, each with its rule: "name (rule)" entries
// separated by "; ".
std::map<std::string, std::string> named_in(const std::string& line) {
    std::map<std::string, std::string> out;
    for (const char* name : {"first-only.test", "first-setsid.test", "second-only.test"}) {
        const size_t at = line.find(std::string(name) + " (");
        if (at == std::string::npos) continue;
        // The rule runs to the parenthesis that closes the one after the
        // name: the rule has parentheses of its own.
        const size_t rule = at + std::strlen(name) + 2;
        size_t end = rule;
        for (int depth = 1; end < line.size() && depth > 0; ++end) depth += line[end] == '(' ? 1 : line[end] == ')' ? -1 : 0;
        out[name] = line.substr(rule, end - rule - 1);
    }
    return out;
}

// Two commands of one warm container look names up while both run (each
// waits for the other's marker): each run's report names its own lookups,
// also one asked by a process that left the command's session. Another
// command's name may appear only in the honest form: when the runner could
// not trace its asker (gone before it looked, or past its search budget on
// a busy machine), every running command is told of it, and its rule says so.
TEST_CASE("docker: concurrent warm commands each get their own refused lookups", "[docker][network][refusals]") {
    require_daemon();
    OmsUser u(true);
    REQUIRE(u.oms({"run", "--", "true"}).exit_code == 0);  // the container, up before both start
    auto first = std::async(std::launch::async, [&] {
        return u.oms({"run", "--", "sh", "-c",
                      "nslookup first-only.test >/dev/null 2>&1; setsid nslookup first-setsid.test >/dev/null 2>&1; "
                      "touch first-asked; " + shell_wait_for("second-asked") + "echo first-saw-second"});
    });
    auto second = std::async(std::launch::async, [&] {
        return u.oms({"run", "--", "sh", "-c",
                      shell_wait_for("first-asked") + "nslookup second-only.test >/dev/null 2>&1; touch second-asked"});
    });
    const ProcessResult a = first.get(), b = second.get();
    INFO(a.out << a.err << "\n---\n" << b.out << b.err);
    CHECK_THAT(a.out, Catch::Contains("first-saw-second"));  // both ran at once
    const std::string untraced = "asker not traced: maybe another command's";
    const auto a_names = named_in(a.err), b_names = named_in(b.err);
    CHECK(a_names.count("first-only.test") == 1);  // its own, whether traced or not
    CHECK(a_names.count("first-setsid.test") == 1);
    CHECK(b_names.count("second-only.test") == 1);
    // The other's names: never as a command's own, only as untraced.
    for (const auto& [name, rule] : a_names)
        if (name.rfind("second-", 0) == 0) CHECK_THAT(rule, Catch::EndsWith(untraced));
    for (const auto& [name, rule] : b_names)
        if (name.rfind("first-", 0) == 0) CHECK_THAT(rule, Catch::EndsWith(untraced));
    // On a quiet machine every asker here is traced; under load any may not
    // be, so which form each takes is not asserted, only that no command is
    // told another's name as its own.
    u.oms({"task", "end"});
}

// An oms that stops reading (here: stopped) while another command floods
// the resolver with lookups whose asker is gone (told to every command):
// the frames it is sent stop short of its socket's buffer, so the runner
// still sends its command's status without waiting, and every other command
// of the container keeps being served. The victim, once continued, gets its
// status and some of the flood's names.
TEST_CASE("docker: a stopped oms does not make a warm container wait", "[docker][network][refusals]") {
    require_daemon();
    OmsUser u(true);
    REQUIRE(u.oms({"run", "--", "true"}).exit_code == 0);  // the container, up before the victim starts
    const std::string probe = probe_in(u);
    const std::string pid_file = u.root / "victim.pid";
    auto victim = std::async(std::launch::async, [&] {
        return run_process({"/bin/sh", "-c", "echo $$ > " + pid_file + "; exec \"$0\" run -- sh -c \"$1\"", oms_binary(),
                            "touch victim-started; " + shell_wait_for("flood-done") + "touch victim-ended; echo victim-done"},
                           {u.environment(), std::nullopt, u.worktree, 180});
    });
    if (!file_appears(u.worktree + "/victim-started", std::chrono::seconds(30))) {
        const ProcessResult v = victim.get();
        FAIL("the victim's command did not start: " << v.exit_code << "\n" << v.out << v.err);
    }
    const pid_t victim_oms = std::stoi(read_file(pid_file));
    REQUIRE(kill(victim_oms, SIGSTOP) == 0);
    const ProcessResult flood = u.oms({"run", "--", probe, "lookup-flood", "1000"});
    INFO(flood.out << flood.err);
    CHECK_THAT(flood.out, Catch::Contains("SENT 1000"));
    CHECK_THAT(flood.err, Catch::Contains("name lookups refused"));  // the flood's own run is told too
    write_file(u.worktree + "/flood-done", "");
    const bool victim_ended = file_appears(u.worktree + "/victim-ended", std::chrono::seconds(30));
    // The container still serves commands while the victim's oms stays stopped.
    const ProcessResult third = run_process({oms_binary(), "run", "--", "echo", "third-ran"},
                                            {u.environment(), std::nullopt, u.worktree, 30});
    kill(victim_oms, SIGCONT);
    const ProcessResult v = victim.get();
    INFO(third.out << third.err << "\n--- victim\n" << v.out << v.err);
    CHECK(victim_ended);
    CHECK(third.exit_code == 0);
    CHECK_THAT(third.out, Catch::Contains("third-ran"));
    CHECK(v.exit_code == 0);
    CHECK_THAT(v.out, Catch::Contains("victim-done"));
    CHECK_THAT(v.err, Catch::Contains("name lookups refused"));
    u.oms({"task", "end"});
}

// Names whose asker is not found go to every running command, under a bound
// of their own (runner_protocol.hpp): another command's flood of them cannot
// use up a command's room for the names it asked itself.
TEST_CASE("docker: another command's unfound lookups do not crowd out a command's own", "[docker][network][refusals]") {
    require_daemon();
    OmsUser u(true);
    REQUIRE(u.oms({"run", "--", "true"}).exit_code == 0);  // the container, up before both start
    const std::string probe = probe_in(u);
    auto victim = std::async(std::launch::async, [&] {
        // It asks once the flood's second is over: the flood may have used
        // up that second's search budget, and an asker not searched counts
        // as not found (a limit of its own, in security-model.md).
        return u.oms({"run", "--", "sh", "-c",
                      "touch victim-started; " + shell_wait_for("flood-done") +
                          "sleep 1.2; nslookup victim-own.test >/dev/null 2>&1; echo victim-done"});
    });
    if (!file_appears(u.worktree + "/victim-started", std::chrono::seconds(30))) {
        const ProcessResult v = victim.get();
        FAIL("the victim's command did not start: " << v.exit_code << "\n" << v.out << v.err);
    }
    const ProcessResult flood = u.oms({"run", "--", probe, "lookup-flood", "1000"});
    INFO(flood.out << flood.err);
    CHECK_THAT(flood.out, Catch::Contains("SENT 1000"));
    write_file(u.worktree + "/flood-done", "");
    const ProcessResult v = victim.get();
    INFO(v.out << v.err);
    CHECK_THAT(v.out, Catch::Contains("victim-done"));
    // At most 100 of the flood's (fewer when the resolver's queue dropped some), and its own.
    const std::string head = "oms: network: ";
    const size_t at = v.err.find(head);
    REQUIRE(at != std::string::npos);
    const int refused = std::atoi(v.err.c_str() + at + head.size());
    CHECK(refused >= 2);
    CHECK(refused <= 101);
    const ProcessResult last = u.oms({"explain", "--last"});  // the victim's: it ended last
    INFO(last.out << last.err);
    CHECK_THAT(last.out, Catch::Contains("refused: " + std::to_string(refused)));
    CHECK_THAT(last.out, Catch::Contains("  victim-own.test  "));
    u.oms({"task", "end"});
}
