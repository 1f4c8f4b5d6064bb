// `oms run --sandbox landlock` in a world as a developer's shell would call
// it for toolchain work: HOME is the world's fake HOME, the caller's own
// RUSTUP_HOME, CARGO_HOME and GIT_CONFIG_GLOBAL are dropped (so oms's
// defaults, not the test machine's, decide), and a run may set more.
#pragma once
#include "landlock_sandbox.hpp"
#include "process.hpp"

#include <map>
#include <string>

namespace oms::test {

struct ToolchainRun {
    std::string path = "/usr/bin:/bin";
    std::map<std::string, std::string> env;  // set for oms (a name here replaces the caller's)
    std::string script;                      // run by /bin/sh -c, after expand()
    int timeout_seconds = 60;
};

ProcessResult run_toolchain_command(World& world, const ToolchainRun& run);

// Appends `toml` to the world's user config (XDG_CONFIG_HOME/oms/config.toml).
void add_user_config(const World& world, const std::string& toml);

}  // namespace oms::test
