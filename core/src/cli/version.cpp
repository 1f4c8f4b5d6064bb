#include "oms/core/version.hpp"

#include <oms/sdk.h>

namespace oms::core {

std::string version_text() {
    return std::string("oms ") + OMS_VERSION + " (plugin ABI " + std::to_string(OMS_ABI_MAJOR) + "." +
           std::to_string(OMS_ABI_MINOR) + ")";
}

}  // namespace oms::core
