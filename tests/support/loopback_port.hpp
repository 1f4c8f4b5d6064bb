// Ports on the host's 127.0.0.1 for network tests.
#pragma once
#include <cstdint>

namespace oms::test {

// A port nobody listens on right now (the kernel's pick, released at once).
uint16_t unused_loopback_port();

}  // namespace oms::test
