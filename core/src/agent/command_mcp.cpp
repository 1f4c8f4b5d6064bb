// oms mcp: a Model Context Protocol server on stdin and stdout, for an agent
// that takes its tools from MCP servers. One server serves one task (one
// worktree). Each tools/call runs this very binary (`oms run ...`) as a child
// process: a call is exactly the run the same command line makes in a
// terminal, with its refusals, its run record and its clean-up. stdout
// carries protocol messages only; oms's own diagnostics go to stderr.
#include "oms/core/cli.hpp"
#include "oms/core/cli_options.hpp"
#include "oms/core/error.hpp"
#include "oms/core/json_rpc.hpp"
#include "oms/core/mcp_server.hpp"
#include "oms/core/paths.hpp"
#include "oms/core/worktree_check.hpp"
#include "oms/core/worktree_default.hpp"

#include <signal.h>
#include <unistd.h>

#include <boost/program_options.hpp>
#include <filesystem>

namespace po = boost::program_options;
namespace fs = std::filesystem;

namespace oms::core {

namespace {

const char* kUsage =
    "usage: oms mcp [options]\n\n"
    "A Model Context Protocol server on stdin/stdout (JSON-RPC 2.0, one message per line) for one task:\n"
    "its run tool runs a shell command under `oms run` in the worktree; explain and policy ask what the\n"
    "sandbox allows. Start it from the agent's MCP configuration (see docs/agents.md).\n\n"
    "options";

// A message longer than this is refused whole (a command line is far shorter).
constexpr size_t kLineLimit = 16 * 1024 * 1024;

std::string server_worktree(const std::string& given) {
    if (given.empty()) return checked_worktree(default_worktree(fs::current_path().string()).worktree);
    std::error_code error;
    if (!fs::is_directory(given, error)) throw UserError(kExitUsage, "oms mcp: --worktree " + given + ": not a folder");
    return checked_worktree(given);
}

}  // namespace

int command_mcp(const Args& args) {
    std::string worktree;
    po::options_description description(kUsage);
    description.add_options()("worktree", po::value<std::string>(&worktree),
                              "the task's worktree, where every command runs (default: as oms run: the top of the "
                              "repository holding the current folder, else the current folder)");
    if (!parse_options(args, description)) return 0;
    ToolContext context{server_worktree(worktree), executable_path()};
    // A client that went away must end the server through a failed write,
    // not a signal that skips stopping the runs.
    signal(SIGPIPE, SIG_IGN);
    rpc::LineWriter writer(STDOUT_FILENO);
    rpc::LineReader reader(STDIN_FILENO, kLineLimit);
    McpServer server(std::move(context), writer);
    while (!writer.broken()) {
        const auto line = reader.next();
        if (!line) break;  // the client closed stdin: the session is over
        if (line->too_long)
            writer.send(rpc::error_response(nullptr, rpc::kInvalidRequest, "message longer than 16 MiB: refused"));
        else
            server.handle_line(line->text);
    }
    return 0;  // the server's destructor stops the runs still going and waits for them
}

}  // namespace oms::core
