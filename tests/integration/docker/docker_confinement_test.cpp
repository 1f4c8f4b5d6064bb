// The docker backend against a real daemon: every confinement property is
// checked inside the container by its real effect, next to a positive
// control showing the allowed counterpart works, in both modes.
#include "docker_fixture.hpp"

#include <arpa/inet.h>
#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <fstream>
#include <sstream>

using namespace oms::test;
using namespace oms::test::docker;

namespace {

std::string status_field(const std::string& status, const std::string& field) {
    std::istringstream in(status);
    std::string line;
    while (std::getline(in, line))
        if (line.compare(0, field.size() + 1, field + ":") == 0) {
            std::string value = line.substr(field.size() + 1);
            return value.substr(value.find_first_not_of(" \t"));
        }
    return "";
}

std::string interface_address(const std::string& name) {
    ifaddrs* list = nullptr;
    if (getifaddrs(&list) != 0) return "";
    std::string out;
    for (ifaddrs* i = list; i; i = i->ifa_next)
        if (i->ifa_addr && i->ifa_addr->sa_family == AF_INET && name == i->ifa_name) {
            char text[INET_ADDRSTRLEN];
            inet_ntop(AF_INET, &reinterpret_cast<sockaddr_in*>(i->ifa_addr)->sin_addr, text, sizeof text);
            out = text;
        }
    freeifaddrs(list);
    return out;
}

std::string own_status() {
    std::ifstream in("/proc/self/status");
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

}  // namespace

TEST_CASE("docker: the container is confined, one-shot and warm", "[docker]") {
    require_daemon();
    const bool warm = GENERATE(false, true);
    CAPTURE(warm);
    Task task(warm);

    SECTION("the root filesystem is read-only; /tmp is writable") {
        Outcome o = task.sh("touch /rootfile; echo root=$?; touch /tmp/x && echo tmp-ok");
        REQUIRE(o.status == OMS_OK);
        CHECK(o.out.find("root=1") != std::string::npos);
        CHECK(o.err.find("Read-only file system") != std::string::npos);
        CHECK(o.out.find("tmp-ok") != std::string::npos);
    }

    SECTION("the command runs as the configured non-root user") {
        Outcome o = task.run({"id", "-u"});
        REQUIRE(o.exit_code == 0);
        CHECK(o.out == container_uid_line());
    }

    SECTION("no effective capabilities and no new privileges") {
        Outcome o = task.run({"cat", "/proc/self/status"});
        REQUIRE(o.exit_code == 0);
        CHECK(status_field(o.out, "CapEff") == "0000000000000000");
        CHECK(status_field(o.out, "CapBnd") == "0000000000000000");
        CHECK(status_field(o.out, "NoNewPrivs") == "1");
        // Control: the same fields read from this unconfined test process
        // differ (an ordinary user has no effective capabilities, but the
        // full bounding set).
        if (geteuid() == 0) CHECK(status_field(own_status(), "CapEff") != "0000000000000000");
        CHECK(status_field(own_status(), "CapBnd") != "0000000000000000");
        CHECK(status_field(own_status(), "NoNewPrivs") == "0");
    }

    SECTION("a fork loop stops at the pids limit; a few processes are fine") {
        Outcome few = task.sh("n=0; while [ $n -lt 10 ]; do sleep 2 & n=$((n+1)); done; echo started=$n");
        CHECK(few.out.find("started=10") != std::string::npos);
        Outcome bomb = task.sh("n=0; while [ $n -lt 500 ]; do sleep 5 & n=$((n+1)); done; echo started=$n");
        CHECK(bomb.exit_code != 0);
        CHECK(bomb.out.find("started=500") == std::string::npos);
        CHECK(bomb.err.find("can't fork") != std::string::npos);
    }

    SECTION("a memory hog is killed at the limit; a small allocation is fine") {
        Outcome small = task.sh("x=$(head -c 8000000 /dev/zero | tr '\\0' a); echo got=${#x}");
        CHECK(small.out.find("got=8000000") != std::string::npos);
        Outcome hog = task.sh("x=$(head -c 300000000 /dev/zero | tr '\\0' a); echo got=${#x}");
        CHECK(hog.exit_code == 137);
        CHECK(hog.out.find("got=300000000") == std::string::npos);
    }

    SECTION("only allowlisted variables reach the command") {
        Outcome o = task.run({"env"});
        REQUIRE(o.exit_code == 0);
        CHECK(o.out.find("LANG=C.UTF-8") != std::string::npos);  // control: allowlisted value arrives
        CHECK(o.out.find("OMS_TEST_SECRET") == std::string::npos);
        CHECK(o.out.find("hunter2") == std::string::npos);
    }

    SECTION("the worktree is writable, .git and the pinned file are not") {
        Outcome o = task.sh("echo new > made.txt && echo wt-ok; echo bad >> .git/config; echo git=$?; "
                            "echo bad >> verify/pinned.sh; echo pin=$?");
        CHECK(o.out.find("wt-ok") != std::string::npos);
        CHECK(read_file(task.worktree + "/made.txt") == "new\n");
        CHECK(o.out.find("git=1") != std::string::npos);
        CHECK(read_file(task.worktree + "/.git/config") == "[core]\n");
        CHECK(o.out.find("pin=1") != std::string::npos);
        CHECK(read_file(task.worktree + "/verify/pinned.sh") == "echo pinned\n");
    }

    SECTION("keypair files are hidden; their neighbours are not") {
        Outcome o = task.sh("cat target/deploy/prog-keypair.json; echo; cat target/deploy/prog.json");
        CHECK(o.out.find("SECRETKEY") == std::string::npos);
        CHECK(o.out.find("public") != std::string::npos);
    }

    SECTION("HOME is private: empty, 0700, writable; the real HOME is absent") {
        Outcome o = task.sh("ls -A \"$HOME\" | wc -l; stat -c %a \"$HOME\"; touch \"$HOME/f\" && echo home-ok; "
                            "cat " + task.home + "/.ssh/id_rsa; echo real=$?");
        REQUIRE(o.status == OMS_OK);
        CHECK(o.out.rfind("0\n700\nhome-ok\n", 0) == 0);
        CHECK(o.out.find("PRIVATE KEY") == std::string::npos);
        CHECK(o.out.find("real=1") != std::string::npos);
        CHECK(read_file(task.home + "/.ssh/id_rsa") == "PRIVATE KEY\n");  // control: it exists on the host
    }

    SECTION("exit status, stdout, stderr and stdin pass through") {
        Outcome o = task.sh("cat; echo to-err >&2; exit 7", "from-stdin\n");
        CHECK(o.exit_code == 7);
        CHECK(o.out == "from-stdin\n");
        CHECK(o.err == "to-err\n");
    }

    SECTION("the command runs in the worktree") {
        Outcome o = task.run({"pwd"});
        CHECK(o.out == task.worktree + "\n");
    }

    SECTION("a forwarded SIGTERM ends the command with 128+15") {
        if (warm) task.run({"true"});  // container up, so the signal lands on the command
        auto start = std::chrono::steady_clock::now();
        Outcome o = task.run_and_signal({"sleep", "30"}, SIGTERM, 1500);
        auto seconds = std::chrono::duration_cast<std::chrono::seconds>(std::chrono::steady_clock::now() - start);
        CHECK(o.exit_code == 143);
        CHECK(seconds.count() < 20);
    }
}

TEST_CASE("docker: with no user configured, the command runs as the worktree's owner and can write it",
          "[docker]") {
    require_daemon();
    const bool warm = GENERATE(false, true);
    CAPTURE(warm);
    Task task(warm);
    write_file(task.manifest, "image = \"" + test_image() + "\"\n");  // no user = "..."
    task.recreate_instance();
    Outcome o = task.sh("id -u; id -g; touch made-here && echo wrote");
    REQUIRE(o.exit_code == 0);
    // The fixture's worktree belongs to the container user.
    CHECK(o.out == container_uid_line() + container_uid_line() + "wrote\n");
    struct stat made {};
    REQUIRE(stat((task.worktree + "/made-here").c_str(), &made) == 0);
    CHECK(made.st_uid == container_uid());

    // A worktree root owns never makes the container root, and as anyone
    // else the command could not write it: the run is refused, saying what
    // to set. Only root can hand a folder to root; as a user, a root-owned
    // folder of the system stands in (mounted, never written).
    if (geteuid() == 0) REQUIRE(chown(task.worktree.c_str(), 0, 0) == 0);
    else task.worktree = "/usr/share/common-licenses";
    Outcome refused = task.run({"id", "-u"});
    INFO(refused.error);
    CHECK(refused.status != OMS_OK);
    CHECK_THAT(refused.error, Catch::Contains("belongs to root") && Catch::Contains("[plugin.docker] user"));
    CHECK(refused.out.empty());
    // Positive control: with the user set as the message says, it runs as that user.
    task.host.strings["user"] = "65534:65534";
    task.recreate_instance();
    Outcome nobody = task.run({"id", "-u"});
    REQUIRE(nobody.exit_code == 0);
    CHECK(nobody.out == "65534\n");
}

TEST_CASE("docker: a missing command exits 127 and one that cannot run 126, in the shell's words", "[docker]") {
    require_daemon();
    const bool warm = GENERATE(false, true);
    CAPTURE(warm);
    Task task(warm);
    write_file(task.worktree + "/not-executable", "echo never\n");
    REQUIRE(chmod((task.worktree + "/not-executable").c_str(), 0644) == 0);
    Outcome missing = task.run({"no-such-tool-anywhere"});
    INFO(missing.error << missing.err);
    CHECK(missing.exit_code == 127);
    CHECK_THAT(missing.err, Catch::Contains("no-such-tool-anywhere: command not found"));
    Outcome missing_path = task.run({"./no-such-file"});
    CHECK(missing_path.exit_code == 127);
    CHECK_THAT(missing_path.err, Catch::Contains("./no-such-file: No such file or directory"));
    Outcome not_runnable = task.run({"./not-executable"});
    CHECK(not_runnable.exit_code == 126);
    CHECK_THAT(not_runnable.err, Catch::Contains("./not-executable: Permission denied"));
    CHECK(not_runnable.out.empty());
    // Positive control: a command that is there runs and keeps its own status.
    CHECK(task.run({"true"}).exit_code == 0);
    CHECK(task.sh("exit 3").exit_code == 3);
}

TEST_CASE("docker: network none reaches nothing; a bridge network reaches the host", "[docker]") {
    require_daemon();
    const bool warm = GENERATE(false, true);
    CAPTURE(warm);
    ServerSocket server;  // accepts on every host address
    // The host as the default bridge network sees it: docker0's address (usually 172.17.0.1).
    std::string host_address = interface_address("docker0");
    REQUIRE(!host_address.empty());
    std::string target = host_address + " " + std::to_string(server.port());
    Task none(warm);
    Outcome blocked = none.sh("echo hi | nc -w 3 " + target + "; echo rc=$?; cat /proc/net/dev");
    CHECK(blocked.out.find("rc=1") != std::string::npos);
    CHECK(blocked.out.find("eth0") == std::string::npos);
    CHECK(blocked.out.find("lo:") != std::string::npos);

    Task bridge(warm, {{"network", "bridge"}});
    Outcome reached = bridge.sh("echo hi | nc -w 3 " + target + "; echo rc=$?");
    CHECK(reached.out.find("rc=0") != std::string::npos);
}

TEST_CASE("docker: a terminal on stdin gives the command a terminal", "[docker]") {
    require_daemon();
    const bool warm = GENERATE(false, true);
    CAPTURE(warm);
    Task task(warm);
    int master = posix_openpt(O_RDWR | O_NOCTTY);
    REQUIRE(master >= 0);
    REQUIRE(grantpt(master) == 0);
    REQUIRE(unlockpt(master) == 0);
    int terminal = open(ptsname(master), O_RDWR | O_NOCTTY);
    REQUIRE(terminal >= 0);
    const std::string probe = "if [ -t 0 ]; then echo tty-yes; else echo tty-no; fi; id -u; exit 4";
    Outcome with_tty = task.run_with_stdin({"sh", "-c", probe}, terminal);
    CHECK(with_tty.out.find("tty-yes") != std::string::npos);
    // Still the confined user (a terminal ends lines with \r\n).
    CHECK(with_tty.out.find(std::to_string(container_uid()) + "\r\n") != std::string::npos);
    CHECK(with_tty.exit_code == 4);
    Outcome without = task.sh(probe);  // control: a file on stdin is no terminal
    CHECK(without.out.find("tty-no") != std::string::npos);
    close(terminal);
    close(master);
}
