// The docker runner's request payload (runner_protocol.hpp), as the runner
// inside a warm container parses it. Properties: no crash; a request that
// parses has a command; its strings are the payload's own, in order; and a
// request made by the host's encoder (runner_payload) parses back to itself.
#include "runner_protocol.hpp"
#include "runner_request.hpp"

#include "fuzz_support.hpp"

#include <numeric>

using oms::docker::runner::parse_request;
using oms::docker::runner::Request;

namespace {

// The payload the host would send for `request` (runner_run.cpp's runner_payload).
std::string encoded(const Request& request) {
    std::string out = request.cwd + '\0' + std::to_string(request.argv.size()) + '\0';
    for (const std::string& a : request.argv) out += a + '\0';
    out += std::to_string(request.env.size()) + '\0';
    for (const std::string& e : request.env) out += e + '\0';
    if (request.report_lookups) out += std::string(oms::docker::runner::kReportLookups) + '\0';
    if (request.report_untraced) out += std::string(oms::docker::runner::kReportUntraced) + '\0';
    std::string ports;
    for (uint16_t port : request.run_ports) ports += (ports.empty() ? "" : ",") + std::to_string(port);
    if (!ports.empty()) out += oms::docker::runner::kRunPorts + ports + '\0';
    return out;
}

size_t string_bytes(const Request& request) {
    auto sum = [](size_t total, const std::string& s) { return total + s.size() + 1; };
    return std::accumulate(request.env.begin(), request.env.end(),
                           std::accumulate(request.argv.begin(), request.argv.end(), request.cwd.size() + 1, sum), sum);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string payload(oms::fuzz::as_text(data, size));
    Request request;
    if (!parse_request(payload, request)) return 0;
    OMS_FUZZ_REQUIRE(!request.argv.empty());
    OMS_FUZZ_REQUIRE(string_bytes(request) <= payload.size());
    for (int fd : request.fds) OMS_FUZZ_REQUIRE(fd == -1);  // descriptors come only with the message
    Request again;
    OMS_FUZZ_REQUIRE(parse_request(encoded(request), again));
    OMS_FUZZ_REQUIRE(again.cwd == request.cwd && again.argv == request.argv && again.env == request.env &&
                     again.report_lookups == request.report_lookups &&
                     again.report_untraced == request.report_untraced && again.run_ports == request.run_ports);
    return 0;
}
