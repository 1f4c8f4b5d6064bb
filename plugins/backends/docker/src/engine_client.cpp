#include "engine_client.hpp"

#include "json.hpp"

#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace oms::docker {

namespace {

[[noreturn]] void fail(const std::string& what) { throw std::runtime_error(what); }

void write_all(int fd, const std::string& data) {
    size_t done = 0;
    while (done < data.size()) {
        ssize_t n = send(fd, data.data() + done, data.size() - done, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) fail(std::string("writing to the Docker socket: ") + std::strerror(errno));
        done += static_cast<size_t>(n);
    }
}

// Reads until `headers_end` is found; returns everything read so far.
std::string read_headers(int fd) {
    std::string data;
    char buf[4096];
    while (data.find("\r\n\r\n") == std::string::npos) {
        ssize_t n = read(fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) fail(std::string("reading from the Docker socket: ") + std::strerror(errno));
        if (n == 0) fail("the Docker daemon closed the connection before replying");
        data.append(buf, static_cast<size_t>(n));
    }
    return data;
}

std::string read_to_end(int fd, std::string data) {
    char buf[16384];
    for (;;) {
        ssize_t n = read(fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) fail(std::string("reading from the Docker socket: ") + std::strerror(errno));
        if (n == 0) return data;
        data.append(buf, static_cast<size_t>(n));
    }
}

int status_of(const std::string& head) {
    // "HTTP/1.1 200 OK"
    size_t space = head.find(' ');
    if (head.compare(0, 5, "HTTP/") != 0 || space == std::string::npos) fail("the Docker daemon sent a non-HTTP reply");
    return std::atoi(head.c_str() + space + 1);
}

std::string lower(std::string s) {
    for (char& c : s) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
    return s;
}

std::string decode_chunked(const std::string& raw) {
    std::string out;
    size_t pos = 0;
    while (pos < raw.size()) {
        size_t eol = raw.find("\r\n", pos);
        if (eol == std::string::npos) fail("truncated chunked reply from the Docker daemon");
        size_t size = std::stoul(raw.substr(pos, eol - pos), nullptr, 16);
        if (size == 0) break;
        out.append(raw, eol + 2, size);
        pos = eol + 2 + size + 2;
    }
    return out;
}

std::string request_text(const std::string& method, const std::string& path, const std::string& body,
                         const std::string& extra_headers) {
    std::string text = method + " " + kApiPrefix + path + " HTTP/1.1\r\nHost: docker\r\n" + extra_headers;
    if (!body.empty()) text += "Content-Type: application/json\r\n";
    text += "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
    return text;
}

}  // namespace

EngineClient::EngineClient(std::string socket_path, int timeout_ms)
    : socket_path_(std::move(socket_path)), timeout_ms_(timeout_ms) {}

int EngineClient::connect_socket(bool with_timeout) const {
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    if (socket_path_.empty() || socket_path_.size() >= sizeof address.sun_path)
        fail("Docker socket path '" + socket_path_ + "' is empty or too long");
    std::memcpy(address.sun_path, socket_path_.c_str(), socket_path_.size() + 1);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) fail(std::string("socket: ") + std::strerror(errno));
    if (with_timeout) {
        timeval tv{timeout_ms_ / 1000, (timeout_ms_ % 1000) * 1000};
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    }
    if (connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
        int saved = errno;
        close(fd);
        fail("cannot reach the Docker daemon at unix://" + socket_path_ + ": " + std::strerror(saved));
    }
    return fd;
}

HttpResponse EngineClient::request(const std::string& method, const std::string& path, const std::string& body) const {
    int fd = connect_socket(true);
    try {
        write_all(fd, request_text(method, path, body, "Connection: close\r\n"));
        std::string raw = read_to_end(fd, read_headers(fd));
        close(fd);
        size_t end = raw.find("\r\n\r\n");
        std::string head = lower(raw.substr(0, end));
        HttpResponse response;
        response.status = status_of(raw);
        response.body = raw.substr(end + 4);
        response.headers = raw.substr(0, end);
        if (head.find("transfer-encoding: chunked") != std::string::npos) response.body = decode_chunked(response.body);
        return response;
    } catch (...) {
        close(fd);
        throw;
    }
}

int EngineClient::hijack(const std::string& path, const std::string& body, std::string& early) const {
    int fd = connect_socket(false);
    try {
        write_all(fd, request_text("POST", path, body, "Connection: Upgrade\r\nUpgrade: tcp\r\n"));
        std::string raw = read_headers(fd);
        size_t end = raw.find("\r\n\r\n");
        int status = status_of(raw);
        if (status != 101 && status != 200) {
            HttpResponse failed{status, read_to_end(fd, raw.substr(end + 4)), raw.substr(0, end)};
            fail("docker exec start failed (HTTP " + std::to_string(status) + "): " + error_message(failed));
        }
        early = raw.substr(end + 4);
        return fd;
    } catch (...) {
        close(fd);
        throw;
    }
}

std::string HttpResponse::header(const std::string& name) const {
    const std::string wanted = "\r\n" + lower(name) + ":";
    std::string all = lower(headers);
    size_t at = all.find(wanted);
    if (at == std::string::npos) return "";
    size_t start = at + wanted.size();
    size_t stop = headers.find("\r\n", start);
    std::string value = headers.substr(start, stop == std::string::npos ? std::string::npos : stop - start);
    size_t first = value.find_first_not_of(' ');
    return first == std::string::npos ? "" : value.substr(first);
}

std::string error_message(const HttpResponse& response) {
    try {
        std::string message = json::text_or(json::member(json::parse(response.body), "message"), "");
        if (!message.empty()) return message;
    } catch (const std::exception&) {
    }
    std::string body = response.body;
    while (!body.empty() && (body.back() == '\n' || body.back() == '\r')) body.pop_back();
    return body;
}

std::string url_encode(const std::string& value) {
    static const char* hex = "0123456789ABCDEF";
    std::string out;
    for (unsigned char c : value) {
        if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
            out += static_cast<char>(c);
        } else {
            out += '%';
            out += hex[c >> 4];
            out += hex[c & 15];
        }
    }
    return out;
}

}  // namespace oms::docker
