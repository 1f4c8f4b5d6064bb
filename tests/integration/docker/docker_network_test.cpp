// The container's own network (`none` by default): a test server on its
// 127.0.0.1 serves the command and is not reachable from the host.
#include "docker_fixture.hpp"
#include "loopback_port.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include <chrono>
#include <fstream>
#include <future>
#include <thread>

using namespace oms::test;
using namespace oms::test::docker;

namespace {

bool host_connects(int port) {
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(static_cast<uint16_t>(port));
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    const bool connected = connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
    close(fd);
    return connected;
}

bool wait_for_file(const std::string& path) {
    for (int i = 0; i < 300; ++i, std::this_thread::sleep_for(std::chrono::milliseconds(50)))
        if (std::ifstream(path)) return true;
    return false;
}

}  // namespace

TEST_CASE("docker: a server on the container's 127.0.0.1 serves the command, never the host", "[docker][network]") {
    require_daemon();
    const bool warm = GENERATE(false, true);
    CAPTURE(warm);
    const ClosedLoopbackPort closed;  // the host's side stays closed; the container listens on its own
    const int port = closed.port();
    const std::string p = std::to_string(port);
    Task task(warm);
    const std::string script =
        "mkdir -p $TMPDIR/www && echo inside-page > $TMPDIR/www/page && httpd -p 127.0.0.1:" + p +
        " -h $TMPDIR/www -f & sleep 0.3; wget -qO- http://127.0.0.1:" + p + "/page; touch listening; "
        "i=0; while [ ! -f host-tried ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i+1)); done; "
        "wget -qO- http://127.0.0.1:" + p + "/page; kill %1; echo done";
    auto inside = std::async(std::launch::async, [&] { return task.sh(script); });
    const bool listening = wait_for_file(task.worktree + "/listening");
    const bool host_reached = host_connects(port);
    std::ofstream(task.worktree + "/host-tried") << "x";
    const Outcome r = inside.get();
    INFO(r.error << r.out << r.err);
    REQUIRE(listening);
    CHECK(r.out == "inside-page\ninside-page\ndone\n");  // positive: before and after the host's try
    CHECK_FALSE(host_reached);                           // negative: the port is not open on the host
}
