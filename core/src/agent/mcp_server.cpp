#include "oms/core/mcp_server.hpp"

#include "oms/core/version.hpp"

#include <cmath>

namespace oms::core {

namespace {

using nlohmann::json;

// Newest first; a client asking for another version gets the newest.
const char* const kProtocolVersions[] = {"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"};

// From 2025-11-25 on, arguments a tool cannot take are a tool error the
// model can read and correct, not a protocol error (versions are dates).
bool argument_errors_are_results(const std::string& version) { return version >= "2025-11-25"; }

std::string negotiated_version(const std::string& requested) {
    for (const char* version : kProtocolVersions)
        if (requested == version) return requested;
    return kProtocolVersions[0];
}

std::string server_version() {
    const std::string text = version_text();  // "oms 0.1.0 (plugin ABI 1.1)"
    const size_t start = text.find(' ') + 1, end = text.find(' ', start);
    return text.substr(start, end == std::string::npos ? std::string::npos : end - start);
}

const json& object_member(const json& params, const char* name) {
    static const json empty = json::object();
    auto it = params.find(name);
    return it != params.end() && it->is_object() ? *it : empty;
}

// The progressToken of the request's _meta, or null when it asked for none.
json progress_token(const json& params) {
    const json& meta = object_member(params, "_meta");
    auto it = meta.find("progressToken");
    return it != meta.end() && rpc::is_valid_id(*it) ? *it : json();
}

json progress_notification(const json& token, std::chrono::milliseconds elapsed) {
    const double seconds = std::round(static_cast<double>(elapsed.count()) / 100.0) / 10.0;
    return rpc::notification("notifications/progress",
                             {{"progressToken", token},
                              {"progress", seconds},
                              {"message", "running for " + std::to_string(elapsed.count() / 1000) + " s"}});
}

}  // namespace

McpServer::McpServer(ToolContext context, rpc::LineWriter& writer) : context_(std::move(context)), writer_(writer) {}

McpServer::~McpServer() {
    std::lock_guard<std::mutex> lock(calls_mutex_);
    for (auto& [id, call] : calls_) call->cancel = true;
    for (auto& [id, call] : calls_) call->thread.join();
}

void McpServer::handle_line(const std::string& line) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) return;  // blank lines carry nothing
    const json message = json::parse(line, nullptr, false);
    if (message.is_discarded()) {
        writer_.send(rpc::error_response(nullptr, rpc::kParseError, "parse error: the line is not JSON"));
        return;
    }
    handle_message(message);
}

void McpServer::handle_message(const json& message) {
    if (message.is_array()) {
        writer_.send(rpc::error_response(nullptr, rpc::kInvalidRequest, "batches are not supported: one message per line"));
        return;
    }
    if (!message.is_object() || !message.contains("method")) {
        // A response to us would be ignored (this server sends no requests).
        if (message.is_object() && (message.contains("result") || message.contains("error"))) return;
        writer_.send(rpc::error_response(nullptr, rpc::kInvalidRequest, "not a JSON-RPC request or notification"));
        return;
    }
    const bool is_request = message.contains("id");
    const json id = is_request && rpc::is_valid_id(message["id"]) ? message["id"] : json();
    const json& method = message["method"];
    const json params = message.contains("params") ? message["params"] : json::object();
    if (message.value("jsonrpc", json()) != "2.0" || !method.is_string() || (is_request && id.is_null())) {
        if (is_request)
            writer_.send(rpc::error_response(id, rpc::kInvalidRequest,
                                             "invalid request: needs \"jsonrpc\": \"2.0\", a method name and an id that "
                                             "is a string or an integer"));
        return;
    }
    if (is_request)
        handle_request(id, method.get<std::string>(), params);
    else
        handle_notification(method.get<std::string>(), params);
}

// Every request gets its answer or its error, whatever goes wrong on the way.
void McpServer::handle_request(const json& id, const std::string& method, const json& params) {
    try {
        if (!params.is_object()) throw rpc::Error(rpc::kInvalidParams, "params must be an object");
        const json result = answer(id, method, params);
        if (!result.is_null()) writer_.send(rpc::result_response(id, result));
    } catch (const rpc::Error& e) {
        writer_.send(rpc::error_response(id, e.code(), e.what()));
    } catch (const std::exception& e) {
        writer_.send(rpc::error_response(id, rpc::kInternalError, std::string("internal error: ") + e.what()));
    }
}

void McpServer::handle_notification(const std::string& method, const json& params) {
    if (method == "notifications/cancelled" && params.is_object() && params.contains("requestId"))
        cancel(params["requestId"]);
    // notifications/initialized and any other notification need nothing.
}

// The result, or null when the call's thread answers later.
json McpServer::answer(const json& id, const std::string& method, const json& params) {
    if (method == "initialize") return initialize(params);
    if (method == "ping") return json::object();
    if (protocol_version_.empty())
        throw rpc::Error(rpc::kInvalidRequest, "the server is not initialized: send initialize first");
    if (method == "tools/list") return tool_list();
    if (method == "tools/call") return start_call(id, params).value_or(json());
    throw rpc::Error(rpc::kMethodNotFound, "method not found: " + method);
}

json McpServer::initialize(const json& params) {
    if (!protocol_version_.empty()) throw rpc::Error(rpc::kInvalidRequest, "already initialized");
    auto requested = params.find("protocolVersion");
    if (requested == params.end() || !requested->is_string())
        throw rpc::Error(rpc::kInvalidParams, "initialize needs params.protocolVersion (a string)");
    protocol_version_ = negotiated_version(requested->get<std::string>());
    return {{"protocolVersion", protocol_version_},
            {"capabilities", {{"tools", {{"listChanged", false}}}}},
            {"serverInfo", {{"name", "oms"}, {"version", server_version()}}},
            {"instructions", "Run shell commands with the run tool: each runs confined by oms in the worktree " +
                                 context_.worktree +
                                 " (only the worktree persists between calls). explain says why something is "
                                 "refused, policy what a command may do."}};
}

std::optional<json> McpServer::start_call(const json& id, const json& params) {
    auto name = params.find("name");
    if (name == params.end() || !name->is_string()) throw rpc::Error(rpc::kInvalidParams, "tools/call needs params.name");
    const json arguments = params.contains("arguments") ? params["arguments"] : json::object();
    ToolCall call{ToolKind::run, {}};
    try {
        call = tool_call(name->get<std::string>(), arguments, context_);
    } catch (const ToolArgumentError& e) {
        if (argument_errors_are_results(protocol_version_)) return argument_error_result(e.what());
        throw rpc::Error(rpc::kInvalidParams, e.what());
    }
    join_finished_calls();
    std::lock_guard<std::mutex> lock(calls_mutex_);
    std::unique_ptr<Call>& state = calls_[id.dump()];
    if (state) throw rpc::Error(rpc::kInvalidRequest, "a request with this id is still running");
    state = std::make_unique<Call>();
    state->thread = std::thread(&McpServer::serve_call, this, id, progress_token(params), std::move(call), std::ref(*state));
    return std::nullopt;
}

void McpServer::serve_call(const json& id, const json& token, ToolCall call, Call& state) {
    ChildProgress progress;
    if (!token.is_null())
        progress.tick = [this, &token, &state](std::chrono::milliseconds elapsed) {
            if (!state.cancel) writer_.send(progress_notification(token, elapsed));
        };
    try {
        const ChildResult result = run_oms_child(call.child, state.cancel, progress);
        // A cancelled request gets no answer (the client has stopped waiting).
        if (!state.cancel) writer_.send(rpc::result_response(id, tool_result(call.kind, result)));
    } catch (const std::exception& e) {
        if (!state.cancel) writer_.send(rpc::error_response(id, rpc::kInternalError, e.what()));
    }
    state.done = true;
}

void McpServer::cancel(const json& request_id) {
    if (!rpc::is_valid_id(request_id)) return;
    std::lock_guard<std::mutex> lock(calls_mutex_);
    auto it = calls_.find(request_id.dump());
    if (it != calls_.end()) it->second->cancel = true;  // unknown or finished: nothing to stop
}

void McpServer::join_finished_calls() {
    std::lock_guard<std::mutex> lock(calls_mutex_);
    for (auto it = calls_.begin(); it != calls_.end();) {
        if (!it->second->done) {
            ++it;
            continue;
        }
        it->second->thread.join();
        it = calls_.erase(it);
    }
}

}  // namespace oms::core
