#include "oms/core/failure_hint.hpp"

#include <csignal>

namespace oms::core {

bool failure_hint_wanted(int exit_code) {
    if (exit_code == 0) return false;
    for (int user_signal : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE, SIGKILL})
        if (exit_code == 128 + user_signal) return false;
    return true;
}

std::string failure_hint(const std::string& backend_id, int exit_code, const DroppedVariables& dropped,
                         const std::string& hidden_tool) {
    std::string line = "oms: exit " + std::to_string(exit_code) + " under the " + backend_id + " sandbox";
    if (!hidden_tool.empty()) line += "; " + hidden_tool;
    if (!dropped.names.empty())
        line += "; not passed from your environment: " + describe_dropped(DroppedVariables{dropped.names, 0}, 6) +
                " (--env NAME passes one)";
    return line + "; if a file or port was refused, ask: oms explain read|write|exec|connect|env TARGET "
                  "(--quiet or [sandbox] failure_hint = false silences this line)";
}

}  // namespace oms::core
