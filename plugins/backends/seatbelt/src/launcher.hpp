// Starting a command under sandbox-exec: the profile goes to a fresh 0600
// file in <state_dir>/seatbelt-profiles (0700; no command can write there,
// unlike the run's temp folder), then (through oms::sdk::ChildProcess) fork + exec of
//   <sandbox-exec> -D NAME=value ... -f <profile file> <argv...>
// with the child's signal mask and dispositions reset, its cwd the working folder,
// only the policy's environment, and no descriptor but 0, 1, 2.
#pragma once
#include "sbpl_profile.hpp"

#include <oms/sdk.hpp>

#include <memory>
#include <string>
#include <vector>

namespace oms::seatbelt {

struct LaunchRequest {
    std::string sandbox_exec;          // absolute path
    std::string state_dir;             // oms's state folder; the profile file goes below it
    Profile profile;
    std::vector<std::string> argv;     // the command
    std::vector<std::string> env;      // exactly the command's environment
    std::string cwd;                   // the working folder (the worktree or below it)
    oms_stdio stdio{0, 1, 2};
};

// The argument vector given to sandbox-exec (pure, for tests and `oms policy`).
std::vector<std::string> sandbox_exec_argv(const std::string& sandbox_exec, const std::string& profile_file,
                                           const std::vector<ProfileParameter>& parameters,
                                           const std::vector<std::string>& argv);

// Throws oms::sdk::Error when the profile cannot be written or sandbox-exec
// cannot be started (the reason names the path and errno text).
std::unique_ptr<oms::sdk::Run> launch(const LaunchRequest& request);

}  // namespace oms::seatbelt
