// The secret files and folders below HOME that stay unreadable even inside a
// reopened root. secret-deny denies them; the root guard (root_guard.hpp)
// refuses any read root that would hold one of the folders.
#pragma once
#include <string>
#include <vector>

namespace oms::policies {

// Paths relative to HOME, in the spec's order, then the other credential
// stores of common tools (package registries, cloud and cluster CLIs, git
// credential files, key stores).
const std::vector<std::string>& home_secret_locations();

// Files below a Cargo home (~/.cargo or $CARGO_HOME) that hold the registry
// token: denied even though the Cargo home itself is a read root.
const std::vector<std::string>& cargo_secret_files();

}  // namespace oms::policies
