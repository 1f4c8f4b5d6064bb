// `oms __verify-launch`: the SDK's verify launcher (oms/verify_launch.hpp)
// as oms's own command, the launcher of every backend whose verify plan
// names none.
#include "oms/core/cli.hpp"

#include <oms/verify_launch.hpp>

namespace {
// Like the canary helper: seccomp refuses LeakSanitizer's ptrace inside.
bool running_as_launcher = false;
}  // namespace

namespace oms::core {

int command_verify_launch(const Args& args) {
    running_as_launcher = true;
    return oms::verify_launch::run(args);
}

}  // namespace oms::core

// Read by LeakSanitizer's opt-out hook (canary_helper.cpp).
bool oms_verify_launcher_running() { return running_as_launcher; }
