#include "oms/core/utc_time.hpp"

#include <ctime>

namespace oms::core {

std::string utc_now() {
    char text[32] = {0};
    const std::time_t now = std::time(nullptr);
    std::tm parts{};
    gmtime_r(&now, &parts);
    std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &parts);
    return text;
}

}  // namespace oms::core
