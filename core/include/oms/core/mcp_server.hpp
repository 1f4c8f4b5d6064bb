// The MCP server behind `oms mcp`: reads JSON-RPC messages, answers
// initialize, ping and tools/list itself, and serves each tools/call on a
// thread of its own (an oms child process), so calls run side by side and a
// notifications/cancelled ends the one it names.
#pragma once
#include "oms/core/json_rpc.hpp"
#include "oms/core/mcp_tools.hpp"

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

namespace oms::core {

class McpServer {
public:
    McpServer(ToolContext context, rpc::LineWriter& writer);
    // Stops the calls still running (as a cancellation) and waits for them.
    ~McpServer();
    McpServer(const McpServer&) = delete;
    McpServer& operator=(const McpServer&) = delete;

    // One line from the client: a request gets its answer (now, or from
    // its call's thread), a notification none.
    void handle_line(const std::string& line);

private:
    struct Call {
        std::atomic<bool> cancel{false};
        std::atomic<bool> done{false};
        std::thread thread;
    };

    void handle_message(const nlohmann::json& message);
    void handle_request(const nlohmann::json& id, const std::string& method, const nlohmann::json& params);
    void handle_notification(const std::string& method, const nlohmann::json& params);
    nlohmann::json answer(const nlohmann::json& id, const std::string& method, const nlohmann::json& params);
    nlohmann::json initialize(const nlohmann::json& params);
    // Starts the call; its thread sends the answer. Returns an immediate
    // result instead when the arguments are wrong (protocol 2025-11-25).
    std::optional<nlohmann::json> start_call(const nlohmann::json& id, const nlohmann::json& params);
    void serve_call(const nlohmann::json& id, const nlohmann::json& progress_token, ToolCall call, Call& state);
    void cancel(const nlohmann::json& request_id);
    void join_finished_calls();

    ToolContext context_;
    rpc::LineWriter& writer_;
    std::string protocol_version_;  // empty until initialize
    std::mutex calls_mutex_;
    std::map<std::string, std::unique_ptr<Call>> calls_;  // by the request id's JSON text
};

}  // namespace oms::core
