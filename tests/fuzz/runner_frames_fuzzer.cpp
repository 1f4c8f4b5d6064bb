// What the docker runner in a warm container sends back for a command
// (runner_protocol.hpp): lookup frames, address frames, then the exit
// status. A command may have taken the runner's place only in theory (it
// cannot trace it), but its frames still never get more trust than a
// parser's. Read by the host's RunnerRun over a socket pair, whose refusal
// file is then read as oms reads it. Properties: no crash; the only error
// is sdk::Error; every refusal that reaches the file reads back with a
// printable host.
#include "runner_run.hpp"

#include "oms/core/violation_log.hpp"

#include "fuzz_support.hpp"

#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

namespace {

std::string file_text(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

// Runs one command's reply through RunnerRun; false when it threw sdk::Error.
bool wait_for(std::string_view reply, const std::string& refusal_file) {
    int ends[2];
    OMS_FUZZ_REQUIRE(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ends) == 0);
    const int null = open("/dev/null", O_RDWR | O_CLOEXEC);
    OMS_FUZZ_REQUIRE(null >= 0);
    bool ended = true;
    {
        oms::docker::RunnerRun run(ends[0], "/work", {"true"}, {"PATH=/bin"}, oms_stdio{null, null, null},
                                   refusal_file);
        const bool sent = send(ends[1], reply.data(), reply.size(), MSG_NOSIGNAL) == ssize_t(reply.size());
        OMS_FUZZ_REQUIRE(sent);
        shutdown(ends[1], SHUT_WR);  // the runner's end: a frame cut short meets it
        try {
            run.wait();
        } catch (const oms::sdk::Error&) {
            ended = false;
        }
    }  // closes ends[0]
    close(ends[1]);
    close(null);
    return ended;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size > 65536) return 0;  // the socket pair's buffer holds it whole
    static oms::fuzz::InputFile refusals("runner-refusals");
    refusals.write("");
    wait_for(oms::fuzz::as_text(data, size), refusals.path());
    for (const auto& v : oms::core::parse_refusal_lines(file_text(refusals.path()))) {
        OMS_FUZZ_REQUIRE(oms::fuzz::printable_bytes(v.host));
        OMS_FUZZ_REQUIRE(v.port >= 0 && v.port <= 65535);
    }
    return 0;
}
