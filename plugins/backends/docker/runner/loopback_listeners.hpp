// Whether anything in the container takes a connect to one of its loopback
// ports. Nothing inside may watch the container's packets (no CAP_NET_RAW),
// so a connect refused there (a reset, no listener) is found this way: once
// the connect watch let the call go on (command_connects.hpp), the runner
// looks in the socket tables (socket_tables.hpp) for a TCP socket listening
// on that port, or a UDP socket bound to it (a UDP socket's connect is
// watched as well), on a loopback or the unspecified address.
//
// A report, not a fact: a server that starts or stops within the moment
// between the connect and the look makes one connect reported wrongly or
// not at all. Bounded: the looks may take a tenth of the runner's time in
// any second; past that, or with a table too long to read, nothing is
// reported.
#pragma once
#include <cstdint>

namespace oms::docker::runner {

enum class Listening { yes, no, unknown };

// Whether a socket of the container's tables takes connects to `port` on
// the loopback; unknown when a table was not read whole.
Listening listening_at(uint16_t port, long deadline = 0);

// listening_at within the runner's budget: unknown once this second's looks
// have used it up.
class ListenerLooks {
public:
    Listening listening_at(uint16_t port);

private:
    static constexpr long kMicrosecondsEachSecond = 100000;  // a tenth of the runner's time
    long window_start_ = 0;  // microseconds, CLOCK_MONOTONIC
    long spent_ = 0;
};

}  // namespace oms::docker::runner
