// `oms mcp` as a child process the test talks to line by line: hand-written
// JSON in, every line it writes on stdout read back (and checked to be a
// JSON-RPC message: stdout carries nothing else).
#pragma once
#include <sys/types.h>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace oms::test {

class McpSession {
public:
    // Starts `argv` in `cwd` with `env`; its stderr goes to a file the test can read.
    McpSession(const std::vector<std::string>& argv, const std::vector<std::string>& env, const std::string& cwd);
    ~McpSession();
    McpSession(const McpSession&) = delete;
    McpSession& operator=(const McpSession&) = delete;

    void send_line(const std::string& line);
    void send(const nlohmann::json& message) { send_line(message.dump()); }
    // The next message, or nullopt when none came in time or stdout ended.
    std::optional<nlohmann::json> next(std::chrono::milliseconds timeout = std::chrono::seconds(60));
    // The next message that is a response (not a notification); the
    // notifications met on the way are kept in `notifications`.
    std::optional<nlohmann::json> next_response(std::chrono::milliseconds timeout = std::chrono::seconds(60));
    // initialize with this protocol version, then notifications/initialized.
    nlohmann::json initialize(const std::string& version = "2025-06-18");
    // tools/call of `tool` with `arguments`, id `id`, and its response.
    nlohmann::json call(int id, const std::string& tool, const nlohmann::json& arguments);

    void close_stdin();
    // Its exit status after stdin closed, or nullopt when it did not end in time.
    std::optional<int> wait_exit(std::chrono::milliseconds timeout);
    std::string stderr_text() const;
    // Lines of stdout that were not JSON-RPC 2.0 messages (must stay empty).
    const std::vector<std::string>& stray_lines() const { return stray_; }
    std::vector<nlohmann::json> notifications;

private:
    pid_t pid_ = -1;
    int in_ = -1, out_ = -1;
    std::string err_file_;
    std::string buffer_;
    std::vector<std::string> stray_;
    bool exited_ = false;
    int status_ = 0;
};

// A tools/call request.
nlohmann::json call_request(int id, const std::string& tool, const nlohmann::json& arguments);

}  // namespace oms::test
