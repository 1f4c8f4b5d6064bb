// Warnings a backend wants shown once per state folder (e.g. the spec's "OMS
// host mode has NO sandbox here"): printed to stderr the first time, then
// remembered by a marker file in the state folder.
#pragma once
#include <string>
#include <vector>

namespace oms::core {

// Returns true when the warnings were printed now.
bool warn_once(const std::string& state_dir, const std::string& backend_id, const std::vector<std::string>& lines);

}  // namespace oms::core
