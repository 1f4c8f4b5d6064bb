// The host's side of a request with run ports (runner_run.hpp): oms waits for
// the runner's word before the run starts, and anything but "held" fails the
// run with one line, nothing run. A stand-in runner answers on a socketpair.
#include "runner_run.hpp"

#include "../runner/runner_protocol.hpp"

#include <catch2/catch.hpp>

#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstring>
#include <thread>

using namespace oms::docker;

namespace {

// Reads the request's header (with its descriptors) and payload, then gives
// `answer` (nothing when 0) and hangs up. Returns the request's magic.
uint32_t stand_in_runner(int fd, uint32_t answer) {
    uint32_t header[2] = {0, 0};
    iovec io{header, sizeof header};
    alignas(cmsghdr) char control[CMSG_SPACE(3 * sizeof(int))];
    msghdr msg{};
    msg.msg_iov = &io;
    msg.msg_iovlen = 1;
    msg.msg_control = control;
    msg.msg_controllen = sizeof control;
    if (recvmsg(fd, &msg, MSG_WAITALL | MSG_CMSG_CLOEXEC) != sizeof header) return 0;
    if (cmsghdr* c = CMSG_FIRSTHDR(&msg)) {
        int fds[3];
        std::memcpy(fds, CMSG_DATA(c), sizeof fds);
        for (int f : fds) close(f);
    }
    std::string payload(header[1], '\0');
    if (recv(fd, payload.data(), payload.size(), MSG_WAITALL) != static_cast<ssize_t>(payload.size())) return 0;
    if (answer != 0) (void)!send(fd, &answer, sizeof answer, MSG_NOSIGNAL);
    close(fd);
    return header[0];
}

// A RunnerRun with run port 41234 against a stand-in that answers `answer`:
// the error it threw (empty when none) and the magic the stand-in saw.
std::pair<std::string, uint32_t> start_with(uint32_t answer) {
    int pair[2];
    REQUIRE(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) == 0);
    uint32_t magic = 0;
    std::thread runner([&] { magic = stand_in_runner(pair[1], answer); });
    const int null = open("/dev/null", O_RDWR | O_CLOEXEC);
    std::string error;
    try {
        RunnerRun run(pair[0], "/wt", {"true"}, {}, oms_stdio{null, null, null}, "", {41234});
    } catch (const oms::sdk::Error& e) {
        error = e.what();
    }
    runner.join();
    close(null);
    return {error, magic};
}

}  // namespace

TEST_CASE("run ports: the runner's \"held\" starts the run; \"taken\" or no answer fails it with one line") {
    const auto held = start_with(runner::kRunPortsHeld);
    CHECK(held.first.empty());  // control
    CHECK(held.second == runner::kMagicRunPorts);  // an older runner refuses this magic outright
    const auto taken = start_with(runner::kRunPortsTaken);
    CHECK(taken.first == "docker: the warm container cannot hold 127.0.0.1:41234 (this run's egress proxy port) for "
                         "the command: a process in it holds that port; nothing ran");
    const auto older = start_with(0);  // an older runner: it closes the connection
    CHECK_THAT(older.first, Catch::Contains("does not hold a run's own egress proxy port (it predates this oms"));
    CHECK_THAT(older.first, Catch::Contains("nothing ran"));
}
