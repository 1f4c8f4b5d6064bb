// A minimal HTTP/1.1 client for the Docker Engine API over its unix socket,
// with libc only: one connection per request ("Connection: close"), chunked
// and Content-Length bodies, and the hijacked (upgraded) connection that
// `exec start` returns. Going to the socket directly avoids spawning the
// docker CLI (about 100 ms a call) on every command.
#pragma once
#include <string>

namespace oms::docker {

// The API version every request names; 1.41 is served by Docker 20.10 and later.
inline constexpr const char* kApiPrefix = "/v1.41";

struct HttpResponse {
    int status = 0;
    std::string body;
    std::string headers;  // the header lines as received

    // Value of a header (name compared without case), or empty.
    std::string header(const std::string& name) const;
};

class EngineClient {
public:
    // `timeout_ms` bounds each connect/read of ordinary requests (not hijacked streams).
    explicit EngineClient(std::string socket_path, int timeout_ms = 30000);
    const std::string& socket_path() const { return socket_path_; }

    // Sends one request (JSON body when non-empty) and reads the whole reply.
    // Throws std::runtime_error when the daemon cannot be reached or replies garbage.
    HttpResponse request(const std::string& method, const std::string& path, const std::string& body = "") const;

    // Sends a POST that upgrades the connection to a raw stream (exec start).
    // Returns the connected descriptor, owned by the caller; bytes already read
    // past the headers go to `early`. Throws on failure, with the daemon's message.
    int hijack(const std::string& path, const std::string& body, std::string& early) const;

private:
    std::string socket_path_;
    int timeout_ms_;
    int connect_socket(bool with_timeout) const;
};

// The daemon's "message" from an error reply body, or the body itself.
std::string error_message(const HttpResponse& response);

// Percent-encodes a query parameter value.
std::string url_encode(const std::string& value);

}  // namespace oms::docker
