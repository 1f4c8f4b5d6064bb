// Tools whose folders default to a place under HOME (rustup: ~/.rustup,
// Cargo: ~/.cargo) would look in the private HOME inside the sandbox and find
// nothing. For the variables the spec's allowlist names for exactly this
// (RUSTUP_HOME, CARGO_HOME), the command gets the real default folder when
// the user has not set the variable and the folder exists. Its reads and
// writes stay what the policy says (toolchain roots: read-only; Cargo's
// download caches: written through; extracted sources: scratch).
#pragma once
#include <map>
#include <string>

namespace oms::core {

// Name -> the real folder, for each such variable whose default folder exists.
std::map<std::string, std::string> toolchain_home_defaults(const std::string& real_home);

}  // namespace oms::core
