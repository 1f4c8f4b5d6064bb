// The kernel's socket tables of the container's network namespace
// (/proc/net/tcp, tcp6, udp, udp6), read by the runner and its resolver:
// who asked a lookup (lookup_askers.hpp), whether anything listens on a
// loopback port (loopback_listeners.hpp). Bounded: a table is read up to
// kMaxTableBytes (about 8,000 IPv4 or 6,000 IPv6 sockets), and a search
// that does not read it whole answers "not known" rather than guess.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>

namespace oms::docker::runner {

inline constexpr size_t kMaxTableBytes = 1u << 20;

long monotonic_microseconds();
// Whether a deadline (microseconds, CLOCK_MONOTONIC; 0: none) has passed.
bool passed(long deadline);

// Up to `limit` bytes of `path`; `whole` says whether the file ended first.
std::string read_small_file(const std::string& path, size_t limit, bool* whole = nullptr, long deadline = 0);

// One end of a socket, as IPv4: the unspecified address is 0, an
// IPv4-mapped IPv6 address its IPv4 one; `ipv6_loopback` for ::1 (address 0).
struct Endpoint {
    uint32_t address = 0;  // host byte order
    uint16_t port = 0;
    bool ipv6_loopback = false;
};

// "HEX:PORT" as the tables print it. False for an IPv6 address that is
// neither mapped, unspecified nor ::1.
bool endpoint_of(const char* text, Endpoint& out);

struct TableSocket {
    Endpoint local, remote;
    unsigned state = 0;  // the kernel's TCP state (0x0A: listening); 0x07 for an unconnected UDP socket
    unsigned long inode = 0;
};

// Calls `each` for every socket of `table` whose ends are read; false when
// the table was not read whole (longer than kMaxTableBytes, or `deadline`).
bool for_each_socket(const char* table, const std::function<void(const TableSocket&)>& each, long deadline = 0);

}  // namespace oms::docker::runner
