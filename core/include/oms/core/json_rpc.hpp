// JSON-RPC 2.0 as the Model Context Protocol carries it over stdio: one
// message per line, UTF-8, no batches; the error codes of the JSON-RPC spec.
#pragma once
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

namespace oms::core::rpc {

constexpr int kParseError = -32700;
constexpr int kInvalidRequest = -32600;
constexpr int kMethodNotFound = -32601;
constexpr int kInvalidParams = -32602;
constexpr int kInternalError = -32603;

// A request that gets an error response instead of a result.
class Error : public std::runtime_error {
public:
    Error(int code, const std::string& message) : std::runtime_error(message), code_(code) {}
    int code() const noexcept { return code_; }

private:
    int code_;
};

// MCP's ids: a string or an integer (never null).
bool is_valid_id(const nlohmann::json& id);

nlohmann::json result_response(const nlohmann::json& id, nlohmann::json result);
// `id` is null when the request's own id could not be read.
nlohmann::json error_response(const nlohmann::json& id, int code, const std::string& message);
nlohmann::json notification(const std::string& method, nlohmann::json params);

// Writes each message as one line on a descriptor, whole, one thread at a
// time. Text that is not UTF-8 (a command's output) is written with U+FFFD
// in place of the bad bytes. After a failed write (the client is gone) it
// writes nothing more and broken() says so.
class LineWriter {
public:
    explicit LineWriter(int fd) : fd_(fd) {}
    void send(const nlohmann::json& message);
    bool broken() const;

private:
    mutable std::mutex mutex_;
    int fd_;
    bool broken_ = false;
};

// Reads lines from a descriptor. A line longer than the limit is dropped
// whole and reported as such, so one huge message cannot take the memory.
class LineReader {
public:
    struct Line {
        std::string text;
        bool too_long = false;
    };
    LineReader(int fd, size_t limit) : fd_(fd), limit_(limit) {}
    // The next line without its newline; nullopt at the end of input.
    std::optional<Line> next();

private:
    int fd_;
    size_t limit_;
    std::string buffer_;
    size_t scanned_ = 0;     // bytes of buffer_ known to hold no newline
    bool skipping_ = false;  // inside a line that was too long
    bool at_end_ = false;
};

}  // namespace oms::core::rpc
