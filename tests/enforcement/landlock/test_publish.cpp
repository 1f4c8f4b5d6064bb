// --publish and [network] publish: the host's 127.0.0.1:PORT reaches a
// server the command runs on its own loopback, while the run lives, and only
// on a published port. What the host's client gets is read on the host's
// side; the server in the sandbox answers every connection with one line.
#include "landlock_sandbox.hpp"
#include "file_wait.hpp"
#include "loopback_port.hpp"
#include "static_http_server.hpp"
#include "test_support.hpp"

#include <catch2/catch.hpp>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>
#include <vector>

using namespace oms::test;

namespace {

// What the host's 127.0.0.1:port answered: its first bytes, "refused" when
// the connect failed, "reset" or "" when the connection ended with nothing.
std::string ask_host_port(uint16_t port) {
    const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(port);
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    timeval limit{5, 0};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, sizeof limit);
    if (connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
        close(fd);
        return "refused";
    }
    char buffer[64];
    const ssize_t got = read(fd, buffer, sizeof buffer);
    close(fd);
    if (got < 0) return errno == ECONNRESET ? "reset" : "error";
    return std::string(buffer, static_cast<size_t>(got));
}

// The same on the host's [::1]:port; "" when the host has no IPv6 loopback.
std::string ask_host_port_v6(uint16_t port) {
    const int fd = socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return "";
    sockaddr_in6 address{};
    address.sin6_family = AF_INET6;
    address.sin6_port = htons(port);
    address.sin6_addr = in6addr_loopback;
    timeval limit{5, 0};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, sizeof limit);
    if (connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
        const int error = errno;
        close(fd);
        return error == EADDRNOTAVAIL || error == ENETUNREACH ? "" : "refused";
    }
    char buffer[64];
    const ssize_t got = read(fd, buffer, sizeof buffer);
    close(fd);
    return got > 0 ? std::string(buffer, static_cast<size_t>(got)) : "reset";
}

// Whether another program could listen on the host's 127.0.0.1:port now
// (SO_REUSEADDR, as a server would): it must not while the run publishes it.
bool another_program_could_listen(uint16_t port) {
    const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    const int on = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(port);
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    const bool could = bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0 && listen(fd, 1) == 0;
    close(fd);
    return could;
}

// A server answering "PORT-ok\n" to each connection on the sandbox's
// 127.0.0.1:PORT, for each port; the command ends once `done` exists.
std::string servers_until_done(const std::vector<uint16_t>& ports) {
    std::string script;
    for (uint16_t port : ports)
        script += "python3 -c 'import socket\ns = socket.socket()\ns.bind((\"127.0.0.1\", " + std::to_string(port) +
                  "))\ns.listen()\nopen(\"up-" + std::to_string(port) +
                  "\", \"w\").close()\nwhile True:\n    c, _ = s.accept()\n    c.sendall(b\"" + std::to_string(port) +
                  "-ok\\n\")\n    c.close()' & ";
    return script + "i=0; while [ ! -e done ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i+1)); done; kill $(jobs -p); exit 0";
}

}  // namespace

TEST_CASE("publish: the host reaches the run's server on a published port while the run lives, on no other",
          "[landlock][network][publish]") {
    require_landlock();
    REQUIRE(oms_run_available());
    World w;
    const uint16_t published = unused_loopback_port(), unpublished = unused_loopback_port();
    RunOutcome r;
    std::thread run([&] {
        r = run_in_oms_with_options(w, {"--publish", std::to_string(published)}, servers_until_done({published, unpublished}));
    });
    const bool up = file_appears(w.work + "/up-" + std::to_string(published), std::chrono::seconds(20)) &&
                    file_appears(w.work + "/up-" + std::to_string(unpublished), std::chrono::seconds(20));
    const std::string answer = ask_host_port(published);
    const std::string answer_v6 = ask_host_port_v6(published);
    const std::string other = ask_host_port(unpublished);
    write_file(w.work + "/done", "");
    run.join();
    INFO(r.out << r.err);
    REQUIRE(up);
    CHECK(answer == std::to_string(published) + "-ok\n");  // the control: the published port answers the host
    CHECK(other == "refused");                              // its own loopback's other port stays its own
    // [::1] too, where the host has it: browsers try "localhost" there first.
    CHECK((answer_v6.empty() || answer_v6 == std::to_string(published) + "-ok\n"));
    CHECK(r.exit_code == 0);
    CHECK(r.err.find("oms: network:") == std::string::npos);  // the host's connects are no refusal of the command
    CHECK(ask_host_port(published) == "refused");  // nothing of the run outlives it
}

TEST_CASE("publish: with nothing listening in the sandbox the host's client is reset, and only the command's own "
          "refused connect is reported",
          "[landlock][network][publish]") {
    require_landlock();
    REQUIRE(oms_run_available());
    World w;
    const uint16_t port = unused_loopback_port();
    RunOutcome r;
    std::thread run([&] {
        r = run_in_oms_with_options(w, {"--publish", std::to_string(port)},
                                    "touch started; i=0; while [ ! -e done ] && [ $i -lt 300 ]; do sleep 0.1; "
                                    "i=$((i+1)); done; curl -sS http://127.0.0.1:" + std::to_string(port) +
                                        "/; echo own=$?");
    });
    REQUIRE(file_appears(w.work + "/started", std::chrono::seconds(20)));
    const std::string answer = ask_host_port(port);
    write_file(w.work + "/done", "");
    run.join();
    INFO(r.out << r.err);
    CHECK((answer == "reset" || answer.empty()));
    CHECK(lines_starting(r.out, "own=7").size() == 1);
    // Only the command's own connect is its refusal, not the host client's.
    const auto summary = lines_starting(r.err, "oms: network: ");
    REQUIRE(summary.size() == 1);
    CHECK(summary[0].find("oms: network: 1 connection refused: 127.0.0.1:" + std::to_string(port) + " ") == 0);
}

TEST_CASE("publish: a port the host uses, a port the run connects to, a worktree's config and a bad port are "
          "refused in one line, and nothing runs",
          "[landlock][network][publish]") {
    require_landlock();
    REQUIRE(oms_run_available());
    World w;
    const std::string marker = w.work + "/ran";
    const ClosedLoopbackPort taken;  // bound on the host: a listener there could not bind it
    auto in_use = run_in_oms_with_options(w, {"--publish", std::to_string(taken.port())}, "touch " + marker);
    INFO(in_use.err);
    CHECK(in_use.exit_code == 69);
    CHECK(in_use.err.find("cannot publish port " + std::to_string(taken.port())) != std::string::npos);
    CHECK(in_use.err.find("nothing ran") != std::string::npos);

    auto relayed = run_in_oms_with_options(w, {"--publish", "8899"}, "touch " + marker);  // the Surfnet port
    INFO(relayed.err);
    CHECK(relayed.exit_code == 78);
    CHECK(relayed.err.find("refusing to publish port 8899: the command already reaches the host's port 8899") !=
          std::string::npos);

    auto resolver = run_in_oms_with_options(w, {"--publish", "53"}, "touch " + marker);
    INFO(resolver.err);
    CHECK(resolver.exit_code == 69);
    CHECK(resolver.err.find("cannot publish port 53: the sandbox's own resolver answers there") != std::string::npos);

    auto bad = run_in_oms_with_options(w, {"--publish", "70000"}, "touch " + marker);
    CHECK(bad.exit_code == 2);
    CHECK(bad.err.find("--publish '70000': not a TCP port") != std::string::npos);

    write_file(w.work + "/.oms/config.toml", "[network]\npublish = [3000]\n");
    auto widened = run_in_oms(w, "touch " + marker);
    INFO(widened.err);
    CHECK(widened.exit_code == 78);
    CHECK(widened.err.find("network.publish") != std::string::npos);
    CHECK_FALSE(exists(marker));

    // The control: the user's own config publishes, and the run starts.
    std::filesystem::remove(w.work + "/.oms/config.toml");
    std::ofstream(w.root / "xdg-config/oms/config.toml", std::ios::app)
        << "[network]\npublish = [" << unused_loopback_port() << "]\n";
    auto fine = run_in_oms(w, "touch " + marker);
    INFO(fine.err);
    CHECK(fine.exit_code == 0);
    CHECK(exists(marker));
}

TEST_CASE("publish: oms policy shows the published port, in the rules and in landlock's plan; oms explain names it",
          "[landlock][network][publish]") {
    require_landlock();
    REQUIRE(oms_run_available());
    World w;
    auto policy = run_process({oms_binary(), "policy", "--sandbox", "landlock", "--worktree", w.work, "--publish",
                               "5173", "--", "true"},
                              {oms_world_env(w), std::nullopt, w.work, 60});
    INFO(policy.out << policy.err);
    CHECK(policy.exit_code == 0);
    CHECK(policy.out.find("net-publish-loopback 5173 [the host's 127.0.0.1:5173 reaches it]") != std::string::npos);
    CHECK(policy.out.find("  published: host 127.0.0.1:5173 -> 127.0.0.1:5173 (while the run lives)") !=
          std::string::npos);
    CHECK(policy.out.find("not published") == std::string::npos);
    auto explained = run_process({oms_binary(), "explain", "--sandbox", "landlock", "--worktree", w.work, "--publish",
                                  "5173", "connect", "127.0.0.1:5173"},
                                 {oms_world_env(w), std::nullopt, w.work, 60});
    INFO(explained.out << explained.err);
    CHECK(explained.out.find("published: the host's 127.0.0.1:5173 reaches the command's own server on this port") !=
          std::string::npos);
    auto other = run_process({oms_binary(), "explain", "--sandbox", "landlock", "--worktree", w.work, "--publish",
                              "5173", "connect", "127.0.0.1:5174"},
                             {oms_world_env(w), std::nullopt, w.work, 60});
    CHECK(other.out.find("published:") == std::string::npos);  // the control: another port is not
    // A listener there is the host's way in, not "reachable from the task's runs only".
    auto listening = run_process({oms_binary(), "explain", "--sandbox", "landlock", "--worktree", w.work, "--publish",
                                  "5173", "listen", "5173", "5174"},
                                 {oms_world_env(w), std::nullopt, w.work, 60});
    INFO(listening.out << listening.err);
    CHECK(listening.out.find("listen 5173: allowed under landlock\n  rule: net-publish-loopback 5173") !=
          std::string::npos);
    CHECK(listening.out.find("published: the host's 127.0.0.1:5173 (and [::1]:5173) reaches a server listening "
                             "here while a run lives") != std::string::npos);
    CHECK(listening.out.find("listen 5174: allowed under landlock\n  rule: none") != std::string::npos);
    CHECK(listening.out.find("reachable from the task's runs only") != std::string::npos);  // 5174's
}

TEST_CASE("publish: host clients holding every connection they can do not take the command's own relay away",
          "[landlock][network][publish]") {
    require_landlock();
    REQUIRE(oms_run_available());
    World w;
    StaticHttpServer surfnet(std::map<std::string, std::string>{{"/hello", "SURFNET\n"}});
    write_file(w.root / "xdg-config/oms/config.toml",
               "[plugin.network]\nsurfnet_port = " + std::to_string(surfnet.port()) + "\n");
    const uint16_t published = unused_loopback_port();
    // The command's server takes every connection and keeps it open; once
    // the host holds its connections, the command asks the relayed port.
    const std::string script =
        "python3 -c 'import socket\ns = socket.socket()\ns.bind((\"127.0.0.1\", " + std::to_string(published) +
        "))\ns.listen(512)\nopen(\"up\", \"w\").close()\nheld = []\nwhile True:\n    held.append(s.accept()[0])\n"
        "    open(\"held.tmp\", \"w\").write(str(len(held)))\n    __import__(\"os\").rename(\"held.tmp\", \"held\")' & " +
        shell_wait_for("go") + "curl -sS -m 5 http://127.0.0.1:" + std::to_string(surfnet.port()) +
        "/hello; echo relayed=$?; kill %1";
    RunOutcome r;
    std::thread run([&] { r = run_in_oms_with_options(w, {"--publish", std::to_string(published)}, script); });
    REQUIRE(file_appears(w.work + "/up", std::chrono::seconds(20)));
    std::vector<int> held;
    for (int i = 0; i < 300; ++i) {  // more than the relay carries at once
        const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
        sockaddr_in address{};
        address.sin_family = AF_INET;
        address.sin_port = htons(published);
        address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address);
        held.push_back(fd);
    }
    // Until the relay takes no more: the count of connections the server
    // holds has not grown for 1.5 s (a connect past the host's backlog is
    // retried by the kernel a second or three later).
    std::string held_count, last;
    auto stable_since = std::chrono::steady_clock::now();
    for (auto until = stable_since + std::chrono::seconds(15); std::chrono::steady_clock::now() < until;
         std::this_thread::sleep_for(std::chrono::milliseconds(100))) {
        held_count = exists(w.work + "/held") ? read_file(w.work + "/held") : "";
        if (held_count != last) {
            last = held_count;
            stable_since = std::chrono::steady_clock::now();
        } else if (std::chrono::steady_clock::now() - stable_since > std::chrono::milliseconds(1500)) {
            break;
        }
    }
    // Past its share the port still listens (a connection is taken, then
    // reset), so no other program can take the port over meanwhile.
    const std::string past_share = ask_host_port(published);
    const bool taken_over = another_program_could_listen(published);
    write_file(w.work + "/go", "");
    run.join();
    for (int fd : held) close(fd);
    CHECK(past_share != "refused");
    CHECK_FALSE(taken_over);
    INFO(r.out << r.err << "held by the server: " << held_count);
    CHECK(held_count == "128");  // the host's clients got their share (kMaxPublished), no more
    CHECK(lines_starting(r.out, "SURFNET").size() == 1);  // the command's relay still had room
    CHECK(lines_starting(r.out, "relayed=0").size() == 1);
}
