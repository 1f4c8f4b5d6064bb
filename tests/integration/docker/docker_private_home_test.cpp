// Issue 10 items 2 and 4 in docker mode, through the real `oms run --sandbox
// docker`, one-shot and warm: the container's HOME gets the private HOME the
// core makes (a .gitconfig with only the harmless keys of the user's, an
// .npmrc without retries, the toolchain folders the container shows), fresh
// for each command, and CARGO_HOME only where it names a mounted folder; a
// name lookup fails at once with "no such host" while /etc/hosts still
// answers. Each is checked against the host-side files and with a positive
// control.
#include "docker_fixture.hpp"
#include "loopback_port.hpp"
#include "oms_user.hpp"

#include <catch2/catch.hpp>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <sstream>

using namespace oms::test;
using namespace oms::test::docker;

namespace {

// The user's own git config, planted on the host: an identity to keep, a
// credential helper and a token URL that must never reach the container.
const std::string kUserGitConfig =
    "[user]\n\tname = Test User\n\temail = test@example.com\n"
    "[credential]\n\thelper = store --file=/home/test/.git-credentials\n"
    "[url \"https://x-access-token:SECRET-TOKEN-123@github.com/\"]\n\tinsteadOf = https://github.com/\n";

// The seconds busybox's `time -p` reported on the line after `label`.
double reported_seconds(const std::string& out, const std::string& label) {
    std::istringstream lines(out);
    std::string line;
    bool after = false;
    while (std::getline(lines, line)) {
        if (line == label) after = true;
        else if (after && line.rfind("real ", 0) == 0) return std::stod(line.substr(5));
    }
    return 99;
}

}  // namespace

TEST_CASE("docker: HOME holds the private .gitconfig and .npmrc, as the core made them for each command",
          "[docker][home]") {
    require_daemon();
    const bool warm = GENERATE(false, true);
    CAPTURE(warm);
    OmsUser u(warm);
    write_file(u.home + "/.gitconfig", kUserGitConfig);
    // One command reads them, then tampers with HOME as a hostile one would.
    ProcessResult first = u.oms({"run", "--", "sh", "-c",
                                 "cat \"$HOME/.gitconfig\"; echo ---; cat \"$HOME/.npmrc\"; "
                                 "printf '[credential]\\n\\thelper = planted\\n' >> \"$HOME/.gitconfig\"; "
                                 "rm \"$HOME/.npmrc\"; echo left > \"$HOME/left-behind\""});
    INFO(first.out << first.err);
    REQUIRE(first.exit_code == 0);
    CHECK_THAT(first.out, Catch::Contains("name = \"Test User\""));          // kept
    CHECK_THAT(first.out, Catch::Contains("email = \"test@example.com\""));  // kept
    CHECK_THAT(first.out, Catch::Contains("directory = \"" + u.worktree + "\""));
    CHECK(first.out.find("helper") == std::string::npos);        // dropped
    CHECK(first.out.find("SECRET-TOKEN") == std::string::npos);  // dropped
    CHECK(first.out.find("insteadOf") == std::string::npos);
    CHECK_THAT(first.out, Catch::Contains("---\n# oms sandbox"));
    CHECK_THAT(first.out, Catch::Contains("\nfetch-retries=0\n"));
    // The next command gets them fresh; the rest of HOME is the task's
    // (warm: shared by its commands) or the command's own (one-shot).
    ProcessResult second = u.oms({"run", "--", "sh", "-c",
                                  "cat \"$HOME/.gitconfig\" \"$HOME/.npmrc\"; ls -a \"$HOME\"; env"});
    INFO(second.out << second.err);
    REQUIRE(second.exit_code == 0);
    CHECK_THAT(second.out, Catch::Contains("name = \"Test User\""));
    CHECK(second.out.find("planted") == std::string::npos);
    CHECK_THAT(second.out, Catch::Contains("\nfetch-retries=0\n"));
    CHECK((second.out.find("left-behind") != std::string::npos) == warm);
    CHECK(second.out.find("OMS_HOME_FILES") == std::string::npos);  // taken out before the command
    CHECK(read_file(u.home + "/.gitconfig") == kUserGitConfig);     // the host's file, untouched
    u.oms({"task", "end"});
}

TEST_CASE("docker: a toolchain folder the container shows is reachable from HOME, one it does not show is absent",
          "[docker][home]") {
    require_daemon();
    const bool warm = GENERATE(false, true);
    CAPTURE(warm);
    OmsUser u(warm);
    write_file(u.home + "/.cargo/bin/cargo-tool", "tool-v1\n");
    write_file(u.home + "/.local/share/solana/install/version", "solana-v1\n");
    const std::string script = "cat \"$HOME/.cargo/bin/cargo-tool\" \"$HOME/.local/share/solana/install/version\"; "
                               "ls -a \"$HOME\"; echo \"cargo-home=$CARGO_HOME\"; exit 0";
    ProcessResult mounted = u.oms({"run", "--ro", u.home + "/.cargo", "--", "sh", "-c", script});
    INFO(mounted.out << mounted.err);
    CHECK(mounted.exit_code == 0);
    CHECK_THAT(mounted.out, Catch::StartsWith("tool-v1\n"));             // through HOME/.cargo
    CHECK(mounted.out.find("solana-v1") == std::string::npos);           // not mounted: not there
    CHECK(mounted.out.find(".local") == std::string::npos);              // and no link to nothing
    CHECK_THAT(mounted.out, Catch::Contains("\ncargo-home=" + u.home + "/.cargo\n"));  // the core's default
    ProcessResult plain = u.oms({"run", "--", "sh", "-c", script});
    INFO(plain.out << plain.err);
    CHECK(plain.out.find("tool-v1") == std::string::npos);
    CHECK(plain.out.find(".cargo") == std::string::npos);
    CHECK_THAT(plain.out, Catch::Contains("\ncargo-home=\n"));  // a path the container lacks is left out
    u.oms({"task", "end"});
}

TEST_CASE("docker: a name lookup fails within a second with \"no such host\", localhost resolves",
          "[docker][dns]") {
    require_daemon();
    const bool warm = GENERATE(false, true);
    CAPTURE(warm);
    OmsUser u(warm);
    const ClosedLoopbackPort closed;  // the container listens on its own loopback
    const std::string port = std::to_string(closed.port());
    const auto start = std::chrono::steady_clock::now();
    ProcessResult r = u.oms({"run", "--", "sh", "-c",
        "echo nslookup; time -p nslookup registry.npmjs.org 2>&1; "
        "echo wget; time -p wget -q -O- http://example.com/ 2>&1; "
        "mkdir -p \"$TMPDIR/www\" && echo local-page > \"$TMPDIR/www/page\"; "
        "httpd -f -p 127.0.0.1:" + port + " -h \"$TMPDIR/www\" & sleep 0.3; "
        "wget -q -O- http://localhost:" + port + "/page; kill $!; "
        "cat /etc/resolv.conf; (echo 'nameserver 10.0.0.1' >> /etc/resolv.conf) 2>/dev/null || echo resolv-read-only; "
        "exit 0"});
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    INFO(r.out << r.err);
    REQUIRE(r.exit_code == 0);
    // Negative: "no such host", from the resolver, at once (EAI_AGAIN before).
    CHECK_THAT(r.out, Catch::Contains("** server can't find registry.npmjs.org: NXDOMAIN"));
    CHECK(r.out.find("timed out") == std::string::npos);
    CHECK(reported_seconds(r.out, "nslookup") < 1.0);
    CHECK_THAT(r.out, Catch::Contains("wget: bad address 'example.com'"));
    CHECK(reported_seconds(r.out, "wget") < 1.0);
    // Positive: /etc/hosts still answers.
    CHECK_THAT(r.out, Catch::Contains("\nlocal-page\n"));
    CHECK_THAT(r.out, Catch::Contains("\nnameserver 127.0.0.1\n"));
    CHECK_THAT(r.out, Catch::Contains("\nresolv-read-only\n"));
    CHECK(seconds < 30);  // the whole run, a one-shot container's start included
    u.oms({"task", "end"});
}

TEST_CASE("docker: a chosen network keeps Docker's resolver", "[docker][dns]") {
    require_daemon();
    OmsUser u(false, "network = \"bridge\"\n");
    ProcessResult bridged = u.oms({"run", "--", "sh", "-c", "cat /etc/resolv.conf; ps"});
    INFO(bridged.out << bridged.err);
    CHECK(bridged.exit_code == 0);
    CHECK(bridged.out.find("oms sandbox") == std::string::npos);
    CHECK(bridged.out.find("--answer-dns") == std::string::npos);
    // Positive control: the same user with network none gets the sandbox's.
    OmsUser none(false);
    ProcessResult isolated = none.oms({"run", "--", "sh", "-c", "cat /etc/resolv.conf; ps"});
    INFO(isolated.out << isolated.err);
    CHECK_THAT(isolated.out, Catch::Contains("# oms sandbox"));
    CHECK_THAT(isolated.out, Catch::Contains("--answer-dns"));
}

// A warm container's commands share its resolver: a command that kills
// every process it can (the resolver included) cannot take port 53 for
// itself, and lookups are answered again at once, for it and the next one.
namespace {

// A warm command that sends `signal` to every process of the container it
// may (all but PID 1, itself and its shell's parent) and prints "hit" for
// each, runs `then`, and looks a name up until it is answered (at most 2 s):
// "answered-after=N" tenths of a second.
ProcessResult signal_every_process(const OmsUser& u, const std::string& signal, const std::string& then) {
    return u.oms({"run", "--", "sh", "-c",
        "for p in $(ls /proc | grep -E '^[0-9]+$'); do "
        "  [ $p != 1 ] && [ $p != $$ ] && [ $p != $PPID ] && kill -" + signal + " $p 2>/dev/null && echo hit; done; " +
        then +
        "i=0; until nslookup example.com 2>&1 | grep -q NXDOMAIN || [ $i -ge 20 ]; do sleep 0.1; i=$((i+1)); done; "
        "echo answered-after=$i"});
}

// The attack hit something, its own lookup was answered within 2 s, and so
// is the next command's.
void check_lookups_still_answered(const OmsUser& u, const ProcessResult& attack) {
    INFO(attack.out << attack.err);
    CHECK(attack.exit_code == 0);
    CHECK_THAT(attack.out, Catch::Contains("hit"));
    CHECK_THAT(attack.out, Catch::Contains("answered-after="));
    CHECK(attack.out.find("answered-after=20") == std::string::npos);
    ProcessResult next = u.oms({"run", "--", "sh", "-c", "nslookup example.com 2>&1"});
    INFO(next.out << next.err);
    CHECK_THAT(next.out, Catch::Contains("** server can't find example.com: NXDOMAIN"));
}

}  // namespace

TEST_CASE("docker: a warm command that kills the resolver cannot take its port, and lookups keep working",
          "[docker][dns]") {
    require_daemon();
    OmsUser u(true);
    ProcessResult attack = signal_every_process(u, "9",
        "nc -l -p 53 2>&1 & sleep 0.3; kill $! 2>/dev/null && echo took-53; "
        "nc -l -p 5353 2>&1 & sleep 0.3; kill $! 2>/dev/null && echo took-5353; ");
    INFO(attack.out << attack.err);
    CHECK_THAT(attack.out, Catch::Contains("Address already in use"));
    CHECK(attack.out.find("took-53\n") == std::string::npos);       // the runner still holds the port
    CHECK_THAT(attack.out, Catch::Contains("took-5353"));           // control: another port is free to take
    check_lookups_still_answered(u, attack);
    u.oms({"task", "end"});
}

// A helper stopped (SIGSTOP: the command has the helpers' uid) would answer
// nothing, for every later command of the task: the runner kills it and
// starts it again, as when it is killed.
TEST_CASE("docker: a warm command that stops the resolver and the relay does not stop lookups", "[docker][dns]") {
    require_daemon();
    OmsUser u(true);
    ProcessResult attack = signal_every_process(u, "STOP", "");
    check_lookups_still_answered(u, attack);
    ProcessResult stopped = u.oms({"run", "--", "sh", "-c", "grep -l '^State:.*stopped' /proc/[0-9]*/status | wc -l"});
    CHECK(stopped.out == "0\n");  // nothing of the container is left stopped
    u.oms({"task", "end"});
}

// The core sets USER/LOGNAME to the name of the uid oms runs as; in a
// container the command runs as the container's user, so the runner names
// that user from the image's /etc/passwd (the test image knows uid 1000 as
// `oms`; as an ordinary user the container user is that user's uid, which
// the image does not know, and both names are then absent, as `whoami` fails).
TEST_CASE("docker: USER and LOGNAME name the container's user, never oms's", "[docker][home]") {
    require_daemon();
    const bool warm = GENERATE(false, true);
    CAPTURE(warm);
    OmsUser u(warm);
    ProcessResult r = u.oms({"run", "--", "sh", "-c",
                             "echo \"USER=[${USER-unset}] LOGNAME=[${LOGNAME-unset}]\"; "
                             "echo \"whoami=[$(whoami 2>/dev/null)]\"; id -u"});
    INFO(r.out << r.err);
    REQUIRE(r.exit_code == 0);
    CHECK_THAT(r.out, Catch::EndsWith(container_uid_line()));  // it ran as the container's user
    const std::string oms_name = geteuid() == 0 ? "root" : "omstest";
    CHECK(r.out.find("[" + oms_name + "]") == std::string::npos);  // not the host user's name
    if (container_uid() == 1000) {
        CHECK_THAT(r.out, Catch::StartsWith("USER=[oms] LOGNAME=[oms]\nwhoami=[oms]\n"));
    } else {
        CHECK_THAT(r.out, Catch::StartsWith("USER=[unset] LOGNAME=[unset]\nwhoami=[]\n"));
    }
    u.oms({"task", "end"});
}

// A warm task's commands share HOME: one command prepares it so that the
// runner cannot put the private HOME's files there before the next command
// (HOME made 0500, a folder where .npmrc goes, the ~/.cargo link replaced by
// a folder holding a forged tool, a planted .gitconfig, folders at the names
// the runner used for its new files, which held its pid). Before, the runner
// said "cannot put ... into HOME" and started the next command anyway, which
// then ran the forged tool and read the planted config. The attack is the
// same one-shot, where the next command has a HOME of its own anyway.
TEST_CASE("docker: a command that prepares HOME cannot keep the next command from getting the private HOME's files",
          "[docker][home]") {
    require_daemon();
    const bool warm = GENERATE(false, true);
    CAPTURE(warm);
    OmsUser u(warm);
    write_file(u.home + "/.cargo/bin/cargo-tool", "tool-v1\n");
    ProcessResult prepare = u.oms({"run", "--ro", u.home + "/.cargo", "--", "sh", "-c",
        "cat \"$HOME/.cargo/bin/cargo-tool\"; "
        "rm \"$HOME/.cargo\" && mkdir -p \"$HOME/.cargo/bin\" && echo forged > \"$HOME/.cargo/bin/cargo-tool\" && "
        "rm \"$HOME/.npmrc\" && mkdir -p \"$HOME/.npmrc/inside\" && "
        "printf '[core]\\n\\tpager = planted\\n' > \"$HOME/.gitconfig\" && "
        "cd \"$HOME\" && for i in $(seq 1 3000); do echo .oms-new-$i-.gitconfig .oms-moved-aside-$i-.npmrc/x; done | "
        "xargs mkdir -p && cd / && chmod 500 \"$HOME\" && echo prepared"});
    INFO(prepare.out << prepare.err);
    REQUIRE(prepare.exit_code == 0);
    CHECK_THAT(prepare.out, Catch::Contains("tool-v1\nprepared"));  // positive control: the real tool, first
    ProcessResult next = u.oms({"run", "--ro", u.home + "/.cargo", "--", "sh", "-c",
        "cat \"$HOME/.cargo/bin/cargo-tool\" \"$HOME/.gitconfig\" \"$HOME/.npmrc\"; touch \"$HOME/writable\" && "
        "echo home-writable"});
    INFO(next.out << next.err);
    CHECK(next.exit_code == 0);
    CHECK_THAT(next.out, Catch::StartsWith("tool-v1\n"));   // the link to the mounted folder, not the forged tool
    CHECK(next.out.find("forged") == std::string::npos);
    CHECK(next.out.find("planted") == std::string::npos);
    CHECK_THAT(next.out, Catch::Contains("# Written by oms"));
    CHECK_THAT(next.out, Catch::Contains("\nfetch-retries=0\n"));
    CHECK_THAT(next.out, Catch::Contains("home-writable"));
    CHECK(next.err.find("cannot put") == std::string::npos);
    CHECK(read_file(u.home + "/.cargo/bin/cargo-tool") == "tool-v1\n");  // the host's folder, untouched
    u.oms({"task", "end"});
}

// A command that fills HOME (a small tmpfs here) after planting a
// .gitconfig: the runner cannot write the core's file over it, so the next
// command of a warm task is not started (before, it ran and read the planted
// file). `oms task end` gives the task a fresh container (positive control).
TEST_CASE("docker: a full HOME stops the next warm command instead of handing it what the last one planted",
          "[docker][home]") {
    require_daemon();
    const bool warm = GENERATE(false, true);
    CAPTURE(warm);
    OmsUser u(warm, "tmpfs_size = \"4m\"\n");
    ProcessResult fill = u.oms({"run", "--", "sh", "-c",
        "printf '[core]\\n\\tpager = planted\\n' > \"$HOME/.gitconfig\"; "
        "dd if=/dev/zero of=\"$HOME/fill\" bs=64k 2>/dev/null; "
        "(echo x > \"$HOME/more\") 2>/dev/null || echo home-full"});
    INFO(fill.out << fill.err);
    REQUIRE_THAT(fill.out, Catch::Contains("home-full"));
    ProcessResult next = u.oms({"run", "--", "sh", "-c", "cat \"$HOME/.gitconfig\"; echo ran"});
    INFO(next.out << next.err);
    CHECK(next.out.find("planted") == std::string::npos);
    if (warm) {
        CHECK(next.exit_code == 126);
        CHECK(next.out.find("ran") == std::string::npos);
        CHECK_THAT(next.err, Catch::Contains("the command is not started"));
        u.oms({"task", "end"});
        ProcessResult fresh = u.oms({"run", "--", "sh", "-c", "cat \"$HOME/.gitconfig\"; echo ran"});
        INFO(fresh.out << fresh.err);
        CHECK(fresh.exit_code == 0);
        CHECK_THAT(fresh.out, Catch::Contains("# Written by oms"));
        CHECK_THAT(fresh.out, Catch::Contains("\nran\n"));
    } else {
        CHECK(next.exit_code == 0);  // one-shot: a new container, a new HOME
        CHECK_THAT(next.out, Catch::Contains("# Written by oms"));
    }
    u.oms({"task", "end"});
}

// A policy that denies HOME: the command has none, so there is nothing to
// seed, and the command runs (the runner refused it while oms still sent the
// files).
TEST_CASE("docker: with HOME denied by the policy, commands run without one", "[docker][home]") {
    require_daemon();
    const bool warm = GENERATE(false, true);
    CAPTURE(warm);
    OmsUser u(warm, "\n[plugin.env-allowlist]\ndeny = [\"HOME\"]\n");
    for (int run = 0; run < 2; ++run) {
        ProcessResult r = u.oms({"run", "--", "sh", "-c", "echo \"HOME=${HOME-unset}\"; exit 3"});
        INFO(r.out << r.err);
        CHECK(r.exit_code == 3);
        CHECK(r.out == "HOME=unset\n");
        CHECK(r.err.find("not started") == std::string::npos);
    }
    u.oms({"task", "end"});
}

// A user whose HOME (and config, manifest, worktree) lies outside /tmp, as
// a real user's does, so that /tmp can be a --rw mount: made in /var/tmp
// (not in the build tree: that lies in a repository, whose top would be
// taken for the worktree).
std::unique_ptr<OmsUser> user_outside_tmp(bool warm) {
    const char* before = std::getenv("TMPDIR");
    const std::string restore = before ? before : "";
    setenv("TMPDIR", "/var/tmp", 1);
    auto user = std::make_unique<OmsUser>(warm);
    if (before) setenv("TMPDIR", restore.c_str(), 1);
    else unsetenv("TMPDIR");
    return user;
}

TEST_CASE("docker: with the host's /tmp as a --rw mount, a command reaches no run's private folder but its own",
          "[docker][home][run-folders]") {
    require_daemon();
    for (bool warm : {false, true}) {
        INFO((warm ? "warm" : "one-shot"));
        const auto user = user_outside_tmp(warm);
        const OmsUser& u = *user;
        // Every run folder of the user lies in /tmp/oms-runs-UID (made by a
        // first run). Another run's folder, as the core makes them:
        REQUIRE(u.oms({"run", "--", "true"}).exit_code == 0);
        const std::string base = "/tmp/oms-runs-" + std::to_string(geteuid());
        std::string other = base + "/oms-run-XXXXXX";
        REQUIRE(mkdtemp(other.data()) != nullptr);
        write_file(other + "/home/.gitconfig", "[user]\n\tname = other run\n");
        const std::string host_file = "/tmp/oms-docker-run-folders-" + std::to_string(getpid());
        const ProcessResult r = u.oms(
            {"run", "--rw", "/tmp", "--", "sh", "-c",
             "ls " + base + " >/dev/null 2>&1 && echo LISTED || echo NOT-LISTED; "
             "cat " + other + "/home/.gitconfig 2>/dev/null || echo NOT-READ; "
             "echo '[alias] st = !evil' >> " + other + "/home/.gitconfig 2>/dev/null && echo WROTE || echo NOT-WRITTEN; "
             "test -s \"$HOME/.gitconfig\" && echo OWN-HOME-OK; echo host > " + host_file + " && echo HOST-TMP-OK"});
        INFO(r.out << r.err);
        CHECK(r.exit_code == 0);
        CHECK_THAT(r.out, Catch::Contains("NOT-LISTED"));
        CHECK_THAT(r.out, Catch::Contains("NOT-READ"));
        CHECK_THAT(r.out, Catch::Contains("NOT-WRITTEN"));
        CHECK(read_file(other + "/home/.gitconfig") == "[user]\n\tname = other run\n");
        // Positive controls: its own HOME is there, and /tmp is the host's.
        CHECK_THAT(r.out, Catch::Contains("OWN-HOME-OK"));
        CHECK_THAT(r.out, Catch::Contains("HOST-TMP-OK"));
        CHECK(read_file(host_file) == "host\n");
        std::filesystem::remove_all(other);
        std::filesystem::remove(host_file);
        u.oms({"task", "end"});
    }
}

TEST_CASE("docker: a --ro folder holding HOME is not mounted, another --ro folder is", "[docker][home]") {
    require_daemon();
    OmsUser u(false);
    write_file(u.home + "/.secret-token", "SECRET-IN-HOME-5c1e\n");
    write_file(u.root / "data/table.csv", "1,2\n");
    const ProcessResult r = u.oms({"run", "--ro", u.root.path(), "--ro", u.root / "data", "--", "sh", "-c",
                                   "cat " + u.home + "/.secret-token 2>/dev/null || echo NOT-READ; cat " +
                                       (u.root / "data/table.csv")});
    INFO(r.out << r.err);
    CHECK(r.exit_code == 0);
    CHECK_THAT(r.err, Catch::Contains("is not opened: it holds HOME"));
    CHECK_THAT(r.out, Catch::Contains("NOT-READ"));
    CHECK_THAT(r.out, !Catch::Contains("SECRET-IN-HOME-5c1e"));
    CHECK_THAT(r.out, Catch::Contains("1,2"));  // positive control: the folder the policy opened
}
