// The core's launch marks (oms/launch_phase.hpp) at debug level; at any
// other level nothing is made, so the launch path pays one level check.
#pragma once
#include <oms/launch_phase.hpp>

#include <spdlog/spdlog.h>

namespace oms::core {

inline void log_launch_phase(const char* name) {
    if (spdlog::should_log(spdlog::level::debug)) spdlog::debug(launch_phase_mark(name));
}

}  // namespace oms::core
