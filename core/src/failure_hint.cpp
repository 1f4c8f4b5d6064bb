#include "oms/core/failure_hint.hpp"

#include <csignal>

namespace oms::core {

bool failure_hint_wanted(int exit_code) {
    if (exit_code == 0) return false;
    for (int user_signal : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE, SIGKILL})
        if (exit_code == 128 + user_signal) return false;
    return true;
}

std::string failure_hint(const std::string& backend_id, int exit_code) {
    return "oms: exit " + std::to_string(exit_code) + " under the " + backend_id +
           " sandbox; if a file or port was refused, ask: oms explain read|write|exec|connect TARGET "
           "(--quiet or [sandbox] failure_hint = false silences this line)";
}

}  // namespace oms::core
