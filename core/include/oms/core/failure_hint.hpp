// The one line oms prints on stderr after a command fails under a confining
// backend: which sandbox it ran in, and how to ask whether it refused
// something (`oms explain`). The command's own output is never touched.
#pragma once
#include "oms/core/env_options.hpp"

#include <string>

namespace oms::core {

// False for a success and for the signals a user or a pipeline sends
// (SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE, SIGKILL as 128+N): the sandbox
// did not cause those, and a line after Ctrl-C is noise.
bool failure_hint_wanted(int exit_code);

// "oms: exit 1 under the landlock sandbox; not passed from your environment:
// PYTHONPATH (--env NAME passes one); if a file or port was refused, ask: oms
// explain ..." (variables by name only, never a value nor a credential-like name).
// `hidden_tool` (hidden_tool_note), when not empty, comes first after the exit.
std::string failure_hint(const std::string& backend_id, int exit_code, const DroppedVariables& dropped,
                         const std::string& hidden_tool = "");

}  // namespace oms::core
