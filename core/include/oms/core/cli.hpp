// The `oms` command line: one function per subcommand, each returning the
// process exit status. UserError escapes to run_cli, which prints it.
#pragma once
#include <string>
#include <vector>

namespace oms::core {

using Args = std::vector<std::string>;

int run_cli(int argc, char** argv);

int command_run(const Args& args);
int command_doctor(const Args& args);
int command_policy(const Args& args);
int command_explain(const Args& args);
int command_plugins(const Args& args);
int command_settings(const Args& args);
int command_task(const Args& args);
int command_verify(const Args& args);
// For agents (core/src/agent): the MCP server, the Claude Code hook, the shell entry.
int command_mcp(const Args& args);
int command_hook(const Args& args);
int command_sh(const Args& args);
// Inside the sandbox: starts the Surfnet, runs the check (verify_launch.cpp).
int command_verify_launch(const Args& args);

}  // namespace oms::core
