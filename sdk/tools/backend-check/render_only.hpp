// --render-only: the checks for a backend whose commands cannot run on this
// host (seatbelt off macOS). What can be checked is: the descriptor and ABI
// (checked on load), the config keys, `render` of the kit's policy, and,
// with an oracle for the rendered text (decision_oracle.hpp), the
// precedence table. Every run obligation prints NOT RUN with the reason:
// never a pass.
#pragma once
#include "loaded_backend.hpp"
#include "scene.hpp"

#include <string>

namespace oms::backend_check {

// Exit status: 1 when something FAILed, else kExitNotRun (3): nothing failed,
// but the run obligations were not executed.
constexpr int kExitNotRun = 3;

int check_render_only(const LoadedBackend& backend, Scene& scene, const std::string& oracle);

}  // namespace oms::backend_check
