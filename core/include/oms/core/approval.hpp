// Approval of a command that will run without OS confinement: --yes, or a y/N
// answer on the terminal; refused in a non-interactive run without --yes.
#pragma once
#include <string>
#include <vector>

namespace oms::core {

// Throws UserError (kExitRefused) unless approved.
void require_approval(const std::vector<std::string>& argv, const std::string& backend_id, bool yes_flag);

}  // namespace oms::core
