#include "oms/core/cli.hpp"

#include "oms/core/canaries.hpp"
#include "oms/core/error.hpp"
#include "oms/core/launch_phase_log.hpp"
#include "oms/core/version.hpp"

#include <boost/program_options/errors.hpp>
#include <cstdio>
#include <map>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

namespace oms::core {

namespace {

const char* kUsage =
    "usage: oms <command> [options]\n"
    "\n"
    "commands:\n"
    "  run       run a command in the worktree under the sandbox\n"
    "  doctor    list plugins, config files and the active confinement\n"
    "  policy    show what a command would get, before running anything\n"
    "  verify    run the pinned check on a read-only snapshot next to a fresh offline Surfnet\n"
    "  explain   say whether the sandbox allows a path, port or variable, and which rule decides\n"
    "  plugins   list the plugins found\n"
    "  settings  show the sandbox settings line\n"
    "  task      end a task (drops per-task state such as warm containers)\n"
    "  mcp       serve an agent over the Model Context Protocol: its commands run under oms run\n"
    "  hook      a coding agent's hook that sends its shell commands through oms run (claude-code)\n"
    "  sh        a shell entry: oms sh -c CMD is sh -c CMD under oms run\n"
    "\n"
    "options: --help (also after any command), --version\n";

using Command = int (*)(const Args&);

const std::map<std::string, Command>& commands() {
    static const std::map<std::string, Command> table{
        {"run", &command_run},         {"doctor", &command_doctor},     {"policy", &command_policy},
        {"plugins", &command_plugins}, {"settings", &command_settings}, {"task", &command_task},
        {"explain", &command_explain}, {"__canary", &command_canary},
        {"verify", &command_verify},   {"__verify-launch", &command_verify_launch},
        {"mcp", &command_mcp},         {"hook", &command_hook},         {"sh", &command_sh},
    };
    return table;
}

int dispatch(const Args& args) {
    if (args.empty() || args[0] == "--help" || args[0] == "-h") {
        std::fputs(kUsage, args.empty() ? stderr : stdout);
        return args.empty() ? kExitUsage : 0;
    }
    if (args[0] == "--version") {
        std::printf("%s\n", version_text().c_str());
        return 0;
    }
    auto it = commands().find(args[0]);
    if (it == commands().end()) throw UserError(kExitUsage, "unknown command '" + args[0] + "' (see oms --help)");
    return it->second(Args(args.begin() + 1, args.end()));
}

// A message that names its subcommand ("oms verify: ...") already says who
// speaks: it is printed as it is, not as "oms: oms verify: ...".
std::string prefixed(const std::string& message) {
    return message.rfind("oms ", 0) == 0 || message.rfind("oms:", 0) == 0 ? message : "oms: " + message;
}

}  // namespace

int run_cli(int argc, char** argv) {
    // Diagnostics go to stderr: stdout carries the command's own output
    // (`oms run -- cat f > copy` must copy f, not oms's warnings).
    spdlog::set_default_logger(spdlog::stderr_logger_mt("oms"));
    spdlog::set_pattern("oms: %l: %v");
    spdlog::set_level(spdlog::level::warn);
    if (const char* level = std::getenv("OMS_LOG")) spdlog::set_level(spdlog::level::from_str(level));
    log_launch_phase("start");
    try {
        return dispatch(Args(argv + 1, argv + argc));
    } catch (const UserError& e) {
        std::fprintf(stderr, "%s\n", prefixed(e.what()).c_str());
        return e.exit_code();
    } catch (const boost::program_options::error& e) {
        std::fprintf(stderr, "oms: %s (see --help)\n", e.what());
        return kExitUsage;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "oms: internal error: %s\n", e.what());
        return kExitSoftware;
    }
}

}  // namespace oms::core
