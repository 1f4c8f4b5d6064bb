// The Surfnet relay (issue 11, item 1) and the trusted Surfpool session in
// Docker (item 2), done from inside the container with a static probe:
// the host's 127.0.0.1 listener on the allowed port receives the marker and
// answers; another host port, another address, UDP and DNS stay out of
// reach; a port nobody listens on fails at once; in one-shot and warm mode.
// The allowed port is a free one given as the Surfnet port, not 8899.
#include "loopback_port.hpp"
#include "docker_fixture.hpp"
#include "marker_listener.hpp"

#include <catch2/catch.hpp>

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <mutex>

using namespace oms::test;
using namespace oms::test::docker;

namespace {

// A UDP socket on the host at 0.0.0.0:`port`; counts what arrives.
class UdpSink {
public:
    explicit UdpSink(int port) {
        fd_ = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
        sockaddr_in a{};
        a.sin_family = AF_INET;
        a.sin_port = htons(static_cast<uint16_t>(port));
        a.sin_addr.s_addr = htonl(INADDR_ANY);
        if (bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) FAIL("cannot bind the UDP sink");
    }
    ~UdpSink() { close(fd_); }
    int datagrams() const {
        int count = 0;
        char buffer[64];
        while (recv(fd_, buffer, sizeof buffer, 0) >= 0) ++count;
        return count;
    }

private:
    int fd_ = -1;
};

std::string own_ipv4() {
    ifaddrs* list = nullptr;
    if (getifaddrs(&list) != 0) return "";
    std::string found;
    for (ifaddrs* i = list; i && found.empty(); i = i->ifa_next) {
        if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET) continue;
        auto* a = reinterpret_cast<sockaddr_in*>(i->ifa_addr);
        if ((ntohl(a->sin_addr.s_addr) >> 24) == 127) continue;
        char text[INET_ADDRSTRLEN];
        inet_ntop(AF_INET, &a->sin_addr, text, sizeof text);
        found = text;
    }
    freeifaddrs(list);
    return found;
}

// The probe, copied into the task's worktree (the container sees it there).
std::string probe_in(Task& task, const std::string& name = "net_probe") {
    const std::string copy = task.worktree + "/" + name;
    std::filesystem::copy_file(OMS_NET_PROBE, copy, std::filesystem::copy_options::overwrite_existing);
    chmod(copy.c_str(), 0755);
    if (geteuid() == 0 && chown(copy.c_str(), container_uid(), container_uid()) != 0) FAIL("chown failed");
    return copy;
}

std::vector<std::string> lines_of(const std::string& text) {
    std::vector<std::string> out;
    std::string line;
    for (char c : text) {
        if (c == '\n') out.push_back(line), line.clear();
        else line += c;
    }
    if (!line.empty()) out.push_back(line);
    return out;
}

bool has_line(const std::string& text, const std::string& line) {
    for (const std::string& l : lines_of(text))
        if (l == line) return true;
    return false;
}

void add_surfnet_port(Task& task, int port) {
    task.extra_rules.push_back(OwnedRule{OMS_RULE_NET_CONNECT_LOOPBACK, "", port, "test: Surfnet port"});
}

}  // namespace

TEST_CASE("docker surfnet: only the host's Surfnet port is reachable, one-shot and warm", "[docker][surfnet]") {
    require_daemon();
    const std::string eth = own_ipv4();
    INFO("this machine has no non-loopback IPv4 address to try");
    REQUIRE_FALSE(eth.empty());
    for (bool warm : {false, true}) {
        INFO((warm ? "warm" : "one-shot"));
        MarkerListener surfnet, other;
        UdpSink udp_sink(surfnet.port());  // the same number, for UDP
        const ClosedLoopbackPort closed;
        const int silent = closed.port();  // allowed, but nothing listens there
        Task task(warm);
        add_surfnet_port(task, surfnet.port());
        add_surfnet_port(task, silent);
        const std::string probe = probe_in(task);
        const std::string marker = std::string("marker-") + (warm ? "warm" : "oneshot");
        const std::string p = std::to_string(surfnet.port());
        Outcome o = task.sh(probe + " connect 127.0.0.1 " + p + " " + marker + "; " +                 //
                            probe + " connect 127.0.0.1 " + std::to_string(other.port()) + " x; " +  //
                            probe + " connect 127.0.0.2 " + p + " x; " +                              //
                            probe + " connect " + eth + " " + p + " x; " +                            //
                            probe + " connect ::1 " + p + " x; " +                                    //
                            probe + " udp 127.0.0.1 " + p + "; " +                                    //
                            probe + " udp " + eth + " " + p + "; " +                                  //
                            probe + " udp 8.8.8.8 53; " +                                             //
                            "nslookup example.com >/dev/null 2>&1 && echo OK dns || echo DENIED dns");
        INFO(o.error << o.out << o.err);
        REQUIRE(o.status == OMS_OK);
        auto lines = lines_of(o.out);
        REQUIRE(lines.size() == 9);
        // Positive: the marker crossed to the host's listener, which answered.
        CHECK(lines[0] == "OK reply=hello-" + marker);
        CHECK(surfnet.received() == std::vector<std::string>{marker});
        // Negatives: another host port, other addresses, UDP (even to the
        // allowed port: the relay is TCP only) and DNS.
        for (size_t i = 1; i < 5; ++i) CHECK(lines[i].rfind("DENIED connect", 0) == 0);
        // UDP to 127.0.0.1 stays on the container's own loopback (sent, but
        // the host sees nothing); to any other address there is no route.
        CHECK(lines[6].rfind("DENIED", 0) == 0);
        CHECK(lines[7].rfind("DENIED", 0) == 0);
        CHECK(lines[8] == "DENIED dns");
        CHECK(udp_sink.datagrams() == 0);
        {  // control: the sink does see a datagram sent on the host
            int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
            sockaddr_in to{};
            to.sin_family = AF_INET;
            to.sin_port = htons(static_cast<uint16_t>(surfnet.port()));
            to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
            CHECK(sendto(fd, "x", 1, 0, reinterpret_cast<sockaddr*>(&to), sizeof to) == 1);
            close(fd);
            usleep(50000);
            CHECK(udp_sink.datagrams() == 1);
        }
        CHECK(other.received().empty());
        CHECK(surfnet.received().size() == 1);

        // Straight to the relay's unix socket, as a hostile command would:
        // oms connects the allowed port (positive) and refuses another.
        Outcome ask = task.sh(probe + " relay-ask /.oms/sock/relay.sock " + p + " asked; " + probe +
                              " relay-ask /.oms/sock/relay.sock " + std::to_string(other.port()) + " smuggled");
        INFO(ask.out << ask.err);
        CHECK(ask.out == "OK reply=hello-asked\nDENIED status 1\n");
        CHECK(other.received().empty());

        // An allowed port with no host listener fails at once (reset), not
        // after a timeout.
        const auto start = std::chrono::steady_clock::now();
        Outcome silent_run = task.run({probe, "connect", "127.0.0.1", std::to_string(silent), "x"});
        const auto took = std::chrono::steady_clock::now() - start;
        INFO(silent_run.out << silent_run.err);
        CHECK((silent_run.out == "DENIED recv ECONNRESET\n" || silent_run.out == "DENIED send ECONNRESET\n" ||
               silent_run.out == "DENIED connect ECONNREFUSED\n"));
        CHECK(took < std::chrono::seconds(warm ? 3 : 8));  // one-shot includes starting a container
        if (warm) CHECK(task.end_task() == OMS_OK);
    }
}

TEST_CASE("docker surfnet: the relay is bounded and survives many connections", "[docker][surfnet]") {
    require_daemon();
    for (bool warm : {false, true}) {
    INFO((warm ? "warm" : "one-shot"));
    MarkerListener surfnet;
    Task task(warm);
    add_surfnet_port(task, surfnet.port());
    const std::string probe = probe_in(task);
    // 40 connections one after the other, then 20 at once: every one answered.
    std::string script = "i=0; while [ $i -lt 40 ]; do " + probe + " connect 127.0.0.1 " +
                         std::to_string(surfnet.port()) + " s$i; i=$((i+1)); done; " + "i=0; while [ $i -lt 20 ]; do " +
                         probe + " connect 127.0.0.1 " + std::to_string(surfnet.port()) + " p$i & i=$((i+1)); done; wait";
    Outcome o = task.sh(script);
    INFO(o.error << o.out << o.err);
    REQUIRE(o.status == OMS_OK);
    auto lines = lines_of(o.out);
    CHECK(lines.size() == 60);
    size_t answered = 0;
    for (auto& line : lines) answered += line.rfind("OK reply=hello-", 0) == 0;
    CHECK(answered == 60);
    CHECK(surfnet.received().size() == 60);
    // Connections to relay.sock that never say which port they want do not
    // hold up the others.
    Outcome idle = task.sh(probe + " relay-hold /.oms/sock/relay.sock 20 4 & sleep 0.5; " + probe +
                           " connect 127.0.0.1 " + std::to_string(surfnet.port()) + " past-idle; wait");
    INFO(idle.out << idle.err);
    CHECK(idle.out == "HELD 20\nOK reply=hello-past-idle\n");
    // The relay is never the command's child (a command that waits for all
    // its children would wait for it forever).
    Outcome children = task.sh("read c < /proc/$$/task/$$/children; echo \"[$c]\"");
    CHECK(children.out == "[]\n");
    if (warm) CHECK(task.end_task() == OMS_OK);
    }
}

TEST_CASE("docker surfnet: only the trusted Surfpool binary may listen on the Surfpool ports", "[docker][surfnet]") {
    require_daemon();
    for (bool warm : {false, true}) {
        INFO((warm ? "warm" : "one-shot"));
        MarkerListener host_side;  // the host's listener on the second allowed port
        const int listen_port = unused_loopback_port();
        Task task(warm);
        const std::string surfpool = probe_in(task, "surfpool");
        const std::string copy = probe_in(task, "surfpool-copy");  // same bytes, another file
        write_file(task.worktree + "/start-surfpool.sh",
                   "#!/bin/sh\nexec " + surfpool + " \"$@\"\n");
        chmod((task.worktree + "/start-surfpool.sh").c_str(), 0755);
        if (geteuid() == 0)
            REQUIRE(chown((task.worktree + "/start-surfpool.sh").c_str(), container_uid(), container_uid()) == 0);
        add_surfnet_port(task, listen_port);
        add_surfnet_port(task, host_side.port());
        task.extra_rules.push_back(OwnedRule{OMS_RULE_NET_LISTEN_LOOPBACK, surfpool, 0, "test: trusted Surfpool"});
        const std::vector<std::string> args{std::to_string(listen_port), std::to_string(host_side.port()), "sp"};

        // Positive: the trusted binary listens on its port in its container
        // and is reached there.
        std::vector<std::string> argv{surfpool, "surfpool"};
        argv.insert(argv.end(), args.begin(), args.end());
        Outcome trusted = task.run(argv);
        INFO(trusted.error << trusted.out << trusted.err);
        REQUIRE(trusted.status == OMS_OK);
        auto lines = lines_of(trusted.out);
        REQUIRE(lines.size() == 3);
        CHECK(lines[0] == "OK listen");
        CHECK(lines[1] == "OK reply=hello-self");
        // Its container's loopback is its own: the host's listener is not reached from it.
        CHECK(lines[2].rfind("DENIED", 0) == 0);
        CHECK(host_side.received().empty());

        // A copy, a script that starts it, and another program (busybox nc)
        // find the Surfpool port held by the relay: no listening there.
        for (const std::vector<std::string>& other :
             {std::vector<std::string>{copy, "listen", std::to_string(listen_port)},
              std::vector<std::string>{task.worktree + "/start-surfpool.sh", "listen", std::to_string(listen_port)},
              std::vector<std::string>{"sh", "-c", "nc -l -p " + std::to_string(listen_port) +
                                                       " -s 127.0.0.1 </dev/null >/dev/null 2>&1 & sleep 1; kill $! "
                                                       "2>/dev/null && echo OK listen || echo DENIED listen"}}) {
            Outcome o = task.run(other);
            INFO(o.error << o.out << o.err);
            REQUIRE(o.status == OMS_OK);
            CHECK(o.out.rfind("DENIED listen", 0) == 0);
        }
        // Control for the above: untrusted, the allowed host port is relayed.
        Outcome relayed = task.run({copy, "connect", "127.0.0.1", std::to_string(host_side.port()), "via-relay"});
        CHECK(relayed.out == "OK reply=hello-via-relay\n");
        CHECK(host_side.received() == std::vector<std::string>{"via-relay"});
        if (warm) CHECK(task.end_task() == OMS_OK);
    }
}

TEST_CASE("docker surfnet warm: when the run serving the relay ends, a concurrent run takes over",
          "[docker][surfnet]") {
    require_daemon();
    MarkerListener surfnet;
    Task task(true);
    add_surfnet_port(task, surfnet.port());
    const std::string probe = probe_in(task);
    REQUIRE(task.run({"true"}).exit_code == 0);  // the container exists before both runs
    // A serves first (it starts first and lives 2 s); B starts while A runs,
    // stands by, and must serve its own connections once A is gone.
    std::thread first([&] { task.sh("sleep 2"); });
    usleep(500 * 1000);
    Outcome second = task.sh("i=0; while [ $i -lt 12 ]; do " + probe + " connect 127.0.0.1 " +
                             std::to_string(surfnet.port()) + " b$i; sleep 0.3; i=$((i+1)); done");
    first.join();
    INFO(second.error << second.out << second.err);
    auto lines = lines_of(second.out);
    REQUIRE(lines.size() == 12);
    size_t answered = 0;
    for (auto& line : lines) answered += line.rfind("OK reply=hello-", 0) == 0;
    CHECK(answered >= 11);  // at most one inside the hand-over (up to 0.1 s)
    CHECK(lines.back() == "OK reply=hello-b11");  // long after A ended: served by B
    CHECK(task.end_task() == OMS_OK);
}

TEST_CASE("docker surfnet warm: a command that kills the relay does not break it for the next",
          "[docker][surfnet]") {
    require_daemon();
    MarkerListener surfnet;
    Task task(true);
    add_surfnet_port(task, surfnet.port());
    const std::string probe = probe_in(task);
    const std::string port = std::to_string(surfnet.port());
    REQUIRE(task.run({probe, "connect", "127.0.0.1", port, "before"}).out == "OK reply=hello-before\n");
    // The strike: SIGKILL to every child of the runner (PID 1) but this
    // command itself (the runner's child too), the relay among them; then
    // try to take the port.
    Outcome strike = task.sh("killed=0; for s in /proc/[0-9]*/stat; do read -r pid name state ppid rest < $s; "
                             "if [ \"$ppid\" = 1 ] && [ \"$pid\" != \"$$\" ]; then kill -9 $pid && "
                             "killed=$((killed+1)); fi; done; echo killed=$killed; " +
                             probe + " listen " + port);
    INFO(strike.out << strike.err);
    CHECK(strike.out.rfind("killed=", 0) == 0);
    CHECK(strike.out.find("killed=0") == std::string::npos);  // it did kill the relay
    CHECK(has_line(strike.out, "DENIED listen EADDRINUSE"));   // the runner still holds the port
    usleep(300 * 1000);
    Outcome after = task.run({probe, "connect", "127.0.0.1", port, "after"});
    INFO(after.out << after.err);
    CHECK(after.out == "OK reply=hello-after\n");  // a new relay serves
    CHECK(surfnet.received() == std::vector<std::string>{"before", "after"});
    CHECK(task.end_task() == OMS_OK);
}
