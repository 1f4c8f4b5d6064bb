#include "oms/core/egress_request.hpp"

#include "oms/core/proxy_host.hpp"

#include <arpa/inet.h>

#include <cctype>
#include <vector>

namespace oms::core {

namespace {

ParseStep bad(const std::string& why, const std::string& reply) {
    ParseStep step;
    step.state = ParseStep::State::bad;
    step.why = why;
    step.reply = reply;
    return step;
}

ParseStep bad_http(const std::string& why) {
    return bad(why, proxy_reply(ProxyProtocol::http_plain, ProxyOutcome::unreachable, "oms proxy: " + why));
}

// A host the rules of proxy_host.hpp refuse: refused like a host not allowed
// (403, or SOCKS5's "not allowed"), and recorded as a refusal with the bytes
// made printable.
ParseStep bad_host(ProxyProtocol protocol, const std::string& raw, int port, const std::string& why) {
    ParseStep step = bad("malformed host: " + why,
                         proxy_reply(protocol, ProxyOutcome::refused, "oms proxy: malformed host: " + why));
    step.refused_host = true;
    step.request.protocol = protocol;
    step.request.host = raw;
    step.request.port = port;
    return step;
}

// Replaces the raw host of `r` with its validated form; false when refused.
bool take_valid_host(ProxyRequest& r, ParseStep& refusal) {
    const ValidatedHost v = validate_proxy_host(r.host);
    if (!v.ok) {
        refusal = bad_host(r.protocol, r.host, r.port, v.why);
        return false;
    }
    r.host = v.host;
    r.numeric_host = v.numeric;
    return true;
}

// "Host:" as the validated host says it: the server sees the name that was
// matched, never one the command wrote beside it.
std::string host_header(const ProxyRequest& r) {
    const bool v6 = r.numeric_host && r.host.find(':') != std::string::npos;
    std::string text = v6 ? "[" + r.host + "]" : r.host;
    if (r.port != 80) text += ":" + std::to_string(r.port);
    return "Host: " + text + "\r\n";
}

// "host:port" or "[v6]:port"; false when either part is missing or wrong.
bool split_authority(std::string_view authority, int default_port, std::string& host, int& port) {
    std::string_view port_text;
    bool has_port = false;
    if (!authority.empty() && authority.front() == '[') {
        const auto close = authority.find(']');
        if (close == std::string_view::npos) return false;
        host = std::string(authority.substr(1, close - 1));
        if (host.find(':') == std::string::npos) return false;  // brackets hold an IPv6 address only
        std::string_view rest = authority.substr(close + 1);
        if (!rest.empty() && rest.front() != ':') return false;
        has_port = !rest.empty();
        if (has_port) port_text = rest.substr(1);
    } else {
        const auto colon = authority.rfind(':');
        host = std::string(authority.substr(0, colon));
        has_port = colon != std::string_view::npos;
        if (has_port) port_text = authority.substr(colon + 1);
        if (host.find(':') != std::string::npos) return false;
    }
    if (host.empty()) return false;
    if (!has_port) {
        port = default_port;
        return default_port > 0;
    }
    if (port_text.empty() || port_text.size() > 5) return false;
    port = 0;
    for (char c : port_text) {
        if (!std::isdigit(static_cast<unsigned char>(c))) return false;
        port = port * 10 + (c - '0');
    }
    return port >= 1 && port <= 65535;
}

std::string lower(std::string_view text) {
    std::string out(text);
    for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

// Headers a proxy must not pass on: they concern the hop to the proxy, or
// (Host) are written from the validated host instead.
bool is_dropped_header(std::string_view line) {
    const std::string name = lower(line.substr(0, line.find(':')));
    return name == "connection" || name == "proxy-connection" || name == "keep-alive" ||
           name == "proxy-authorization" || name == "host";
}

ParseStep parse_http(std::string_view bytes) {
    const auto end = bytes.find("\r\n\r\n");
    if (end == std::string_view::npos) {
        if (bytes.size() >= kMaxRequestHead) return bad_http("request head too long");
        return {};
    }
    const std::string_view head = bytes.substr(0, end + 2);
    const auto line_end = head.find("\r\n");
    const std::string_view line = head.substr(0, line_end);
    const auto first_space = line.find(' ');
    const auto last_space = line.rfind(' ');
    if (first_space == std::string_view::npos || last_space == first_space) return bad_http("malformed request line");
    const std::string_view method = line.substr(0, first_space);
    const std::string_view target = line.substr(first_space + 1, last_space - first_space - 1);
    const std::string_view version = line.substr(last_space + 1);
    ParseStep step;
    step.state = ParseStep::State::done;
    step.consumed = bytes.size();
    ProxyRequest& r = step.request;
    if (method == "CONNECT") {
        r.protocol = ProxyProtocol::http_connect;
        if (!split_authority(target, 0, r.host, r.port)) return bad_http("CONNECT needs HOST:PORT");
        if (!take_valid_host(r, step)) return step;
        r.upstream_bytes = std::string(bytes.substr(end + 4));
        return step;
    }
    r.protocol = ProxyProtocol::http_plain;
    const std::string scheme = lower(target.substr(0, 7));
    if (scheme != "http://") return bad_http("only http:// URLs are proxied in the clear (https goes through CONNECT)");
    std::string_view rest = target.substr(7);
    const auto slash = rest.find_first_of("/?");
    const std::string_view authority = rest.substr(0, slash);
    if (authority.find('@') != std::string_view::npos) return bad_http("user names in URLs are not proxied");
    if (!split_authority(authority, 80, r.host, r.port)) return bad_http("malformed URL host");
    if (!take_valid_host(r, step)) return step;
    std::string path = slash == std::string_view::npos ? "/" : std::string(rest.substr(slash));
    if (path[0] == '?') path = "/" + path;
    std::string rewritten = std::string(method) + " " + path + " " + std::string(version) + "\r\n" + host_header(r);
    for (size_t at = line_end + 2; at < head.size();) {
        const size_t next = head.find("\r\n", at);
        const std::string_view header = head.substr(at, next - at);
        if (!is_dropped_header(header)) rewritten += std::string(header) + "\r\n";
        at = next + 2;
    }
    r.upstream_bytes = rewritten + "Connection: close\r\n\r\n" + std::string(bytes.substr(end + 4));
    return step;
}

ParseStep parse_socks(std::string_view bytes, bool greeted) {
    const auto* b = reinterpret_cast<const unsigned char*>(bytes.data());
    if (!greeted) {
        if (bytes.size() < 2 || bytes.size() < size_t{2} + b[1]) return {};
        for (size_t i = 0; i < b[1]; ++i)
            if (b[2 + i] == 0x00) {
                ParseStep step;
                step.state = ParseStep::State::reply;
                step.reply = std::string("\x05\x00", 2);
                step.consumed = 2 + b[1];
                return step;
            }
        return bad("SOCKS5 without the no-authentication method", std::string("\x05\xff", 2));
    }
    if (bytes.size() < 5) return {};
    const std::string refuse_command("\x05\x07\x00\x01\x00\x00\x00\x00\x00\x00", 10);
    if (b[0] != 0x05 || b[2] != 0x00) return bad("malformed SOCKS5 request", refuse_command);
    if (b[1] != 0x01) return bad("only SOCKS5 CONNECT is proxied", refuse_command);
    ParseStep step;
    ProxyRequest& r = step.request;
    r.protocol = ProxyProtocol::socks5;
    size_t at = 4;
    char text[INET6_ADDRSTRLEN] = {0};
    if (b[3] == 0x01) {
        if (bytes.size() < at + 4 + 2) return {};
        inet_ntop(AF_INET, b + at, text, sizeof text);
        r.host = text;
        at += 4;
    } else if (b[3] == 0x04) {
        if (bytes.size() < at + 16 + 2) return {};
        inet_ntop(AF_INET6, b + at, text, sizeof text);
        r.host = text;
        at += 16;
    } else if (b[3] == 0x03) {
        const size_t length = b[4];
        if (bytes.size() < at + 1 + length + 2) return {};
        r.host = std::string(bytes.substr(at + 1, length));
        at += 1 + length;
    } else {
        return bad("unknown SOCKS5 address type", std::string("\x05\x08\x00\x01\x00\x00\x00\x00\x00\x00", 10));
    }
    r.port = b[at] << 8 | b[at + 1];
    at += 2;
    if (r.port == 0) return bad("SOCKS5 port 0", refuse_command);
    if (!take_valid_host(r, step)) return step;
    r.upstream_bytes = std::string(bytes.substr(at));
    step.state = ParseStep::State::done;
    step.consumed = bytes.size();
    return step;
}

}  // namespace

ParseStep parse_proxy_request(std::string_view bytes, bool greeted) {
    if (bytes.empty()) return {};
    if (greeted || static_cast<unsigned char>(bytes[0]) == 0x05) return parse_socks(bytes, greeted);
    return parse_http(bytes);
}

std::string proxy_reply(ProxyProtocol protocol, ProxyOutcome outcome, const std::string& message) {
    if (protocol == ProxyProtocol::socks5) {
        // 0x00 succeeded, 0x02 not allowed by the rule set, 0x04 host unreachable.
        const char code = outcome == ProxyOutcome::connected ? 0x00 : outcome == ProxyOutcome::refused ? 0x02 : 0x04;
        return std::string("\x05", 1) + code + std::string("\x00\x01\x00\x00\x00\x00\x00\x00", 8);
    }
    if (outcome == ProxyOutcome::connected)
        return protocol == ProxyProtocol::http_connect ? "HTTP/1.1 200 Connection established\r\n\r\n" : "";
    const std::string status = outcome == ProxyOutcome::refused ? "403 Forbidden" : "502 Bad Gateway";
    const std::string body = message + "\n";
    return "HTTP/1.1 " + status + "\r\nContent-Type: text/plain\r\nConnection: close\r\nContent-Length: " +
           std::to_string(body.size()) + "\r\n\r\n" + body;
}

}  // namespace oms::core
