// The init's refusals of addresses (the loopback watch's resets and port
// unreachables, the connect watch's addresses off the loopback), written to
// the run's refusal log (oms/refusal_log.hpp) once per address and port
// among the last kRemembered, at most kMaxReports a run in all: a command
// that connects in a loop fills neither the log nor the init's time.
// libc only, static storage: it runs in the init, a copy of a threaded
// process.
#pragma once
#include <stddef.h>
#include <stdint.h>

namespace oms::landlock::refusal_reports {

inline constexpr int kRemembered = 32;
inline constexpr int kMaxReports = 1000;

// The run's refusal log (O_APPEND); -1: nothing is written.
void write_to(int report_fd);
int log_descriptor();
// One refusal of `port` at `address` (4 bytes for AF_INET, 16 for AF_INET6),
// seen by `source`, refused by `rule` (both static text).
void report(int family, const uint8_t* address, size_t address_size, uint16_t port, const char* source,
            const char* rule);

}  // namespace oms::landlock::refusal_reports
