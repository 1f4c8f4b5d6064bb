// The tools `oms mcp` offers (run, explain, policy): their descriptions and
// schemas for tools/list, the oms command line a call becomes, and the
// result the client gets back.
#pragma once
#include "oms/core/oms_child.hpp"

#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

namespace oms::core {

struct ToolContext {
    std::string worktree;    // the server's task
    std::string oms_binary;  // absolute: each call runs it
};

enum class ToolKind { run, explain, policy };

struct ToolCall {
    ToolKind kind;
    ChildRequest child;
};

// Arguments a tool cannot take (a missing command, a wrong type, an unknown
// name); the message names the argument.
class ToolArgumentError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// The result of tools/list.
nlohmann::json tool_list();

// The call's command line. Throws rpc::Error(kInvalidParams) for a tool that
// does not exist, ToolArgumentError for arguments it cannot take.
ToolCall tool_call(const std::string& name, const nlohmann::json& arguments, const ToolContext& context);

// The CallToolResult: text for the model, and for run the same as
// structuredContent (run's outputSchema); isError when the command failed.
nlohmann::json tool_result(ToolKind kind, const ChildResult& result);

// A CallToolResult with isError that says which argument was wrong.
nlohmann::json argument_error_result(const std::string& message);

}  // namespace oms::core
