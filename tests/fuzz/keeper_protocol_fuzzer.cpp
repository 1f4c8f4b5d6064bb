// The scan keeper's wire format (plugins/backends/landlock/src/keeper),
// both ways: a keeper reads requests from any process of the user, and a
// launcher reads the keeper's answers. The input is framed and read back
// through a socket pair as the two ends do, then decoded as a request and
// as an answer. Properties: no crash, and what decodes encodes to the very
// same bytes (nothing is dropped or invented on the way).
#include "keeper_protocol.hpp"

#include "fuzz_support.hpp"

#include <sys/socket.h>
#include <unistd.h>

using namespace oms::landlock;

namespace {

// The framed input through a socket pair: what receive_message hands on.
bool through_socket(const std::string& bytes, std::string& received) {
    int ends[2];
    OMS_FUZZ_REQUIRE(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ends) == 0);
    // The input as the sender's whole stream: its first 4 bytes are the length.
    const bool sent = send(ends[0], bytes.data(), bytes.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(bytes.size());
    shutdown(ends[0], SHUT_WR);  // a length past the bytes meets the end, not a wait
    const bool ok = sent && receive_message(ends[1], received);
    close(ends[0]);
    close(ends[1]);
    return ok;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size > 65536) return 0;  // the socket pair's buffer holds it whole
    const std::string bytes(oms::fuzz::as_text(data, size));
    KeeperRequest request;
    if (decode(bytes, request)) OMS_FUZZ_REQUIRE(encode(request) == bytes);
    KeeperAnswer answer;
    if (decode(bytes, answer)) {
        // An answer's bits past its count are padding the encoder writes as zeros.
        KeeperAnswer again;
        OMS_FUZZ_REQUIRE(decode(encode(answer), again));
        OMS_FUZZ_REQUIRE(again.unchanged == answer.unchanged && again.ticket == answer.ticket &&
                         again.now == answer.now);
    }
    std::string received;
    if (through_socket(bytes, received)) {
        OMS_FUZZ_REQUIRE(received.size() + 4 <= bytes.size());
        OMS_FUZZ_REQUIRE(bytes.compare(4, received.size(), received) == 0);
    }
    return 0;
}
