// The version of oms itself and of the plugin ABI it hosts.
#pragma once
#include <string>

namespace oms::core {
std::string version_text();  // "oms 0.1.0 (plugin ABI 1.1)"
}
