#include "loopback_listeners.hpp"

#include "socket_tables.hpp"

namespace oms::docker::runner {

namespace {

constexpr unsigned kTcpListening = 0x0A;

bool on_loopback(const Endpoint& end) { return end.ipv6_loopback || end.address == 0 || (end.address >> 24) == 127; }

}  // namespace

Listening listening_at(uint16_t port, long deadline) {
    struct Table {
        const char* path;
        bool tcp;
    };
    static const Table kTables[] = {
        {"/proc/net/tcp", true}, {"/proc/net/tcp6", true}, {"/proc/net/udp", false}, {"/proc/net/udp6", false}};
    for (const Table& table : kTables) {
        bool found = false;
        const bool whole = for_each_socket(
            table.path,
            [&](const TableSocket& s) {
                if (s.local.port == port && on_loopback(s.local) && (!table.tcp || s.state == kTcpListening))
                    found = true;
            },
            deadline);
        if (found) return Listening::yes;
        if (!whole) return Listening::unknown;
    }
    return Listening::no;
}

Listening ListenerLooks::listening_at(uint16_t port) {
    const long start = monotonic_microseconds();
    if (start - window_start_ >= 1000000) window_start_ = start, spent_ = 0;
    if (spent_ >= kMicrosecondsEachSecond) return Listening::unknown;
    const Listening answer = runner::listening_at(port, start + (kMicrosecondsEachSecond - spent_));
    spent_ += monotonic_microseconds() - start;
    return answer;
}

}  // namespace oms::docker::runner
