// Published ports under docker (`oms run --publish PORT`, NET_PUBLISH_LOOPBACK):
// the host's 127.0.0.1:PORT reaches a server the command runs on the
// container's 127.0.0.1:PORT while the run lives, in the task's warm
// container; a port not published stays closed to the host (the control);
// after the run the port is closed again; a port a host program holds
// refuses the run before anything runs; a one-shot container says the port
// is not published and runs the command. The server is the static probe
// (net_probe.c `serve`), the client this test on the host.
#include "docker_fixture.hpp"
#include "loopback_port.hpp"

#include <catch2/catch.hpp>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <future>

using namespace oms::test;
using namespace oms::test::docker;

namespace {

std::string probe_in(Task& task) {
    const std::string copy = task.worktree + "/net_probe";
    std::filesystem::copy_file(OMS_NET_PROBE, copy, std::filesystem::copy_options::overwrite_existing);
    chmod(copy.c_str(), 0755);
    if (geteuid() == 0 && chown(copy.c_str(), container_uid(), container_uid()) != 0) FAIL("chown failed");
    return copy;
}

void publish(Task& task, uint16_t port) {
    task.extra_rules.push_back(OwnedRule{OMS_RULE_NET_PUBLISH_LOOPBACK, "", port, "test: --publish"});
}

// Asks until the server inside answers (it starts with the command), for up to 20 s.
std::string ask_until_answered(uint16_t port, const std::string& marker) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    std::string answer;
    while (std::chrono::steady_clock::now() < deadline) {
        answer = host_loopback_exchange(port, marker + "\n");
        if (!answer.empty() && answer != "refused") return answer;
        usleep(100'000);
    }
    return answer;
}

// The command: servers on `served` (and on `unpublished`), until the test writes `stop`.
std::string serve_until_stopped(const std::string& probe, uint16_t served, uint16_t unpublished) {
    return probe + " serve " + std::to_string(served) + " >/dev/null & a=$!; " + probe + " serve " +
           std::to_string(unpublished) + " >/dev/null & b=$!; while [ ! -e stop ]; do sleep 0.05; done; kill $a $b; "
           "echo served";
}

}  // namespace

TEST_CASE("docker publish: the host reaches the command's server on a published port while the run lives, "
          "one-shot and warm", "[docker][publish]") {
    require_daemon();
    const bool warm = GENERATE(false, true);
    INFO("warm: " << warm);
    Task task(warm);
    const std::string probe = probe_in(task);
    const uint16_t port = unused_loopback_port();
    uint16_t other = unused_loopback_port();
    while (other == port) other = unused_loopback_port();
    publish(task, port);
    auto run = std::async(std::launch::async, [&] { return task.sh(serve_until_stopped(probe, port, other)); });
    const std::string published = ask_until_answered(port, "from-host");
    // The control: the same server on a port not published is not on the host.
    const std::string unpublished = host_loopback_exchange(other, "from-host\n");
    std::ofstream(task.worktree + "/stop").put('\n');
    const Outcome o = run.get();
    INFO(o.error << o.out << o.err);
    CHECK(published == "hello-from-host\n");
    CHECK(unpublished == "refused");
    REQUIRE(o.status == OMS_OK);
    CHECK(o.exit_code == 0);
    CHECK(o.out == "served\n");
    // The run is over: the host's port is closed with it.
    CHECK(host_loopback_exchange(port, "after\n") == "refused");
}

TEST_CASE("docker publish: a link a command puts at pub.sock never leads the host's clients to a host socket, "
          "one-shot and warm", "[docker][publish]") {
    require_daemon();
    const bool warm = GENERATE(false, true);
    INFO("warm: " << warm);
    Task task(warm);
    // A socket of the host that no container reaches: what a hostile command
    // would hand every local user (the Docker daemon's, a desktop agent's).
    TempDir elsewhere("oms-publish-target");
    const std::string target = elsewhere / "private.sock";
    const int server = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    std::strncpy(address.sun_path, target.c_str(), sizeof address.sun_path - 1);
    REQUIRE(bind(server, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0);
    REQUIRE(listen(server, 8) == 0);
    auto taken = [&] {
        int count = 0;
        for (int fd; (fd = accept(server, nullptr, nullptr)) >= 0; ++count) close(fd);
        return count;
    };
    const uint16_t port = unused_loopback_port();
    publish(task, port);
    // Where oms runs as an ordinary user the command owns the socket folder
    // and makes the link; under root the folder is root's and it cannot.
    // A one-shot run's publish folder is always the container user's: the
    // command makes the link after the helper listens.
    const std::string inside = warm ? "/.oms/sock/pub.sock" : "/.oms/publish/pub.sock";
    auto run = std::async(std::launch::async, [&] {
        return task.sh("while [ ! -S " + inside + " ]; do sleep 0.02; done; { rm -f " + inside + " && ln -s " +
                       target + " " + inside + " && echo linked; } 2>/dev/null; touch ready; "
                       "while [ ! -e stop ]; do sleep 0.05; done");
    });
    const bool owns_folder = !warm || geteuid() != 0;
    REQUIRE(file_appears(task.worktree + "/ready", std::chrono::seconds(30)));
    const std::string answer = host_loopback_exchange(port, "from-host\n");
    usleep(200'000);
    const int reached = taken();
    std::ofstream(task.worktree + "/stop").put('\n');
    const Outcome o = run.get();
    INFO(o.error << o.out << o.err);
    REQUIRE(o.status == OMS_OK);
    CHECK((o.out == "linked\n") == owns_folder);  // the attack was made where it can be
    CHECK(reached == 0);                          // the host's socket never saw the published connection
    CHECK(answer.empty());                        // the host's client got a reset, nothing of that socket
    // The control: the host's socket itself takes connections.
    const int client = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    CHECK(connect(client, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0);
    close(client);
    usleep(100'000);
    CHECK(taken() == 1);
    close(server);
    if (warm) task.end_task();  // the next runs of this task get a container whose pub.sock is its runner's
}

TEST_CASE("docker publish warm: a port a host program holds refuses the run before anything runs",
          "[docker][publish]") {
    require_daemon();
    Task task(true);
    const uint16_t port = unused_loopback_port();
    const int holder = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    REQUIRE(bind(holder, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0);
    REQUIRE(listen(holder, 4) == 0);
    publish(task, port);
    const Outcome refused = task.sh("touch ran");
    close(holder);
    INFO(refused.error << refused.out << refused.err);
    CHECK(refused.status == OMS_ERR_UNAVAILABLE);
    CHECK_THAT(refused.error, Catch::Contains("docker: cannot publish port " + std::to_string(port) +
                                              ": the host's 127.0.0.1:" + std::to_string(port) +
                                              " is in use by another program; nothing ran"));
    CHECK(access((task.worktree + "/ran").c_str(), F_OK) != 0);
    // The control: with the port free the same run goes on.
    const Outcome ran = task.sh("touch ran");
    INFO(ran.error << ran.err);
    CHECK(ran.status == OMS_OK);
    CHECK(access((task.worktree + "/ran").c_str(), F_OK) == 0);
}

TEST_CASE("docker publish warm: port 53, where the container's resolver answers, is refused", "[docker][publish]") {
    require_daemon();
    Task task(true);
    publish(task, 53);
    const Outcome o = task.sh("touch ran");
    INFO(o.error << o.err);
    CHECK(o.status == OMS_ERR_UNSUPPORTED);
    CHECK_THAT(o.error, Catch::Contains("docker: cannot publish port 53: the container's own resolver answers there"));
    CHECK(access((task.worktree + "/ran").c_str(), F_OK) != 0);
}

TEST_CASE("docker publish one-shot: the run's publish folder goes with the run", "[docker][publish]") {
    require_daemon();
    Task task(false);
    const uint16_t port = unused_loopback_port();
    publish(task, port);
    const Outcome o = task.sh("ls -d /.oms/publish && touch /.oms/publish/left-behind && echo ran");
    INFO(o.error << o.err);
    REQUIRE(o.status == OMS_OK);
    CHECK(o.out == "/.oms/publish\nran\n");
    // Nothing of it is left in the state folder, the command's file included.
    int folders = 0;
    for (const auto& entry : std::filesystem::directory_iterator(task.root / "state/docker"))
        folders += entry.path().filename().string().find(".pub") != std::string::npos;
    CHECK(folders == 0);
    CHECK(host_loopback_exchange(port, "x\n") == "refused");
}

TEST_CASE("docker publish one-shot: a publish folder its gone run left is removed by the task's next one-shot run",
          "[docker][publish]") {
    require_daemon();
    Task task(false);
    const std::string docker = task.root / "state/docker";
    make_dirs(docker);
    // Left by a run whose oms was killed (no lock file left), made unreadable
    // by its command; and one of a run that is still going (its lock held).
    const std::string gone = docker + "/oms-run-gone01.pub";
    write_file(gone + "/deep/file", "x");
    REQUIRE(chmod(gone.c_str(), 0) == 0);
    const std::string live = docker + "/oms-run-live01.pub";
    make_dirs(live);
    const int lock = open((docker + "/oms-run-live01.run-lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    REQUIRE(lock >= 0);
    REQUIRE(flock(lock, LOCK_EX | LOCK_NB) == 0);
    const Outcome o = task.sh("echo ran");
    INFO(o.error << o.err);
    REQUIRE(o.status == OMS_OK);
    CHECK(o.out == "ran\n");
    struct stat st;
    CHECK(lstat(gone.c_str(), &st) != 0);  // gone, whatever its command did to it
    CHECK(lstat(live.c_str(), &st) == 0);  // the control: a live run's folder stays
    close(lock);
}
