// The time now as records show it: UTC, ISO 8601, to the second.
#pragma once
#include <string>

namespace oms::core {

std::string utc_now();  // "2026-12-02T07:41:00Z"

}  // namespace oms::core
