// The landlock tests' world (a HOME with secrets, a worktree with a keypair
// file) with what the agents' entries need: running oms or a shell in it.
#pragma once
#include "../landlock/landlock_sandbox.hpp"

#include <map>
#include <string>
#include <vector>

namespace oms::test {

// `argv` run in the worktree with oms_world_env (HOME is the world's).
ProcessResult run_in_world(const World& world, const std::vector<std::string>& argv,
                           const std::optional<std::string>& stdin_text = std::nullopt);
// `oms hook claude-code [options]` given `input` on stdin.
ProcessResult run_hook(const World& world, const std::string& input, const std::vector<std::string>& options = {});
// Adds TOML to the world's user config (after what the world puts there).
void add_user_config(const World& world, const std::string& toml);

}  // namespace oms::test
