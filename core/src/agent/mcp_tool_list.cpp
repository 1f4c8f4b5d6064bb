// What tools/list says: each tool's description (the model reads it to
// decide when to call the tool) and the JSON Schemas of its arguments and,
// for run, of its structured result.
#include "oms/core/mcp_tools.hpp"

namespace oms::core {

namespace {

const char* kRunTool = R"JSON({
  "name": "run",
  "title": "Run a shell command in the sandbox",
  "description": "Runs a shell command (sh -c) confined by oms in the task's worktree: it may read and write the worktree, read system folders and toolchains, and nothing else under HOME (secrets and keypairs stay hidden); the network is closed unless the user allowed hosts. Each call is a run of its own: only the worktree persists between calls (no shell state, a fresh private HOME). Returns the exit status, stdout and stderr (long output is cut in the middle, and said so), and oms's own lines (refused reads, connects and lookups, dropped variables). A non-zero exit is an error result.",
  "inputSchema": {
    "type": "object",
    "properties": {
      "command": {"type": "string", "description": "the shell command, run by sh -c"},
      "cwd": {"type": "string", "description": "the folder it starts in: relative to the worktree, or absolute inside it (default: the worktree)"},
      "timeout_s": {"type": "number", "exclusiveMinimum": 0, "description": "stop the command after this many seconds (default: no limit)"},
      "env": {"type": "array", "items": {"type": "string"}, "description": "more variables for this run: NAME passes the server's own NAME, NAME=VALUE sets it (names that look like credentials are refused)"}
    },
    "required": ["command"],
    "additionalProperties": false
  },
  "outputSchema": {
    "type": "object",
    "properties": {
      "exit_code": {"type": "integer", "description": "the command's exit status (128+N when signal N ended it; oms's own statuses, such as 77 for a refused run, when nothing ran)"},
      "stdout": {"type": "string"},
      "stderr": {"type": "string", "description": "the command's stderr, without oms's own lines"},
      "stdout_truncated": {"type": "boolean"},
      "stderr_truncated": {"type": "boolean"},
      "oms_messages": {"type": "array", "items": {"type": "string"}, "description": "the lines oms printed (they start with 'oms: '): refusals, warnings, the hint after a failure"},
      "timed_out": {"type": "boolean"}
    },
    "required": ["exit_code", "stdout", "stderr", "stdout_truncated", "stderr_truncated", "oms_messages", "timed_out"]
  }
})JSON";

const char* kExplainTool = R"JSON({
  "name": "explain",
  "title": "Why the sandbox allows or refuses something",
  "description": "Says whether a command run by the run tool may read, write or execute a path, connect to or listen on a port or host, or see an environment variable, and which rule of which policy decides it (oms explain). Runs nothing.",
  "inputSchema": {
    "type": "object",
    "properties": {
      "access": {"type": "string", "enum": ["read", "write", "exec", "connect", "listen", "env"]},
      "targets": {"type": "array", "items": {"type": "string"}, "minItems": 1, "description": "paths (relative to the worktree, or absolute), ports, HOST or HOST:PORT, or variable names"}
    },
    "required": ["access", "targets"],
    "additionalProperties": false
  }
})JSON";

const char* kPolicyTool = R"JSON({
  "name": "policy",
  "title": "What a command would get",
  "description": "Shows the rules a command run by the run tool gets (readable and writable folders, hidden files, ports, the environment that passes, the backend) before anything runs (oms policy).",
  "inputSchema": {
    "type": "object",
    "properties": {
      "command": {"type": "string", "description": "the shell command to ask about (default: any command)"}
    },
    "additionalProperties": false
  }
})JSON";

}  // namespace

nlohmann::json tool_list() {
    nlohmann::json tools = nlohmann::json::array();
    for (const char* tool : {kRunTool, kExplainTool, kPolicyTool}) tools.push_back(nlohmann::json::parse(tool));
    return {{"tools", tools}};
}

}  // namespace oms::core
