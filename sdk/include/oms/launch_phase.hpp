// A mark on the way from `oms run` to the command's start and end, for
// bench/launch-phases.sh, which sets the marks of many runs against its own
// clock and prints where a launch spends its time. The core and a backend
// log it at debug level (OMS_LOG=debug shows it; nothing is printed
// otherwise): "phase NAME at MICROSECONDS", CLOCK_REALTIME, the clock of
// bash's EPOCHREALTIME.
#pragma once

#include <time.h>

#include <string>

namespace oms {

inline std::string launch_phase_mark(const char* name) {
    timespec now{};
    clock_gettime(CLOCK_REALTIME, &now);
    const long long microseconds = static_cast<long long>(now.tv_sec) * 1000000 + now.tv_nsec / 1000;
    return std::string("phase ") + name + " at " + std::to_string(microseconds);
}

}  // namespace oms
