// The egress proxy's request parser (HTTP CONNECT, absolute-form HTTP,
// SOCKS5) against whatever a command sends it, fed as the proxy feeds it:
// after a SOCKS5 greeting's reply the consumed bytes are dropped and the
// rest parsed again. Properties: no crash, `consumed` within the input, a
// finished request names a host and a port in range, and that host is the
// one validated value the proxy matches, resolves and connects to: no NUL,
// no control byte, and it passes the validation again unchanged.
#include "oms/core/egress_request.hpp"
#include "oms/core/proxy_host.hpp"

#include "fuzz_support.hpp"

using oms::core::parse_proxy_request;
using oms::core::ParseStep;

namespace {

void check_request(const oms::core::ProxyRequest& request) {
    OMS_FUZZ_REQUIRE(!request.host.empty());
    OMS_FUZZ_REQUIRE(request.port >= 1 && request.port <= 65535);
    OMS_FUZZ_REQUIRE(oms::fuzz::printable_bytes(request.host));
    const oms::core::ValidatedHost again = oms::core::validate_proxy_host(request.host);
    OMS_FUZZ_REQUIRE(again.ok && again.host == request.host && again.numeric == request.numeric_host);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    std::string_view bytes = oms::fuzz::as_text(data, size);
    bool greeted = false;
    // Each reply consumes at least one byte, so this ends.
    for (;;) {
        const ParseStep step = parse_proxy_request(bytes, greeted);
        OMS_FUZZ_REQUIRE(step.consumed <= bytes.size());
        if (step.state == ParseStep::State::done) check_request(step.request);
        if (step.state == ParseStep::State::bad) OMS_FUZZ_REQUIRE(!step.why.empty());
        if (step.state != ParseStep::State::reply) break;
        OMS_FUZZ_REQUIRE(step.consumed > 0);
        bytes.remove_prefix(step.consumed);
        greeted = true;
    }
    return 0;
}
