// The first bytes a client sends the egress proxy, read into a destination
// whose host is validated once (proxy_host.hpp):
// an HTTP CONNECT (TLS and anything else passes through untouched), a plain
// HTTP request in absolute form ("GET http://host/path"), rewritten to the
// origin form a server expects with "Connection: close" so that one
// connection never carries requests for another host, or a SOCKS5 CONNECT
// (no authentication). Nothing here touches a socket.
#pragma once
#include <cstddef>
#include <string>
#include <string_view>

namespace oms::core {

enum class ProxyProtocol { http_connect, http_plain, socks5 };

struct ProxyRequest {
    ProxyProtocol protocol = ProxyProtocol::http_connect;
    std::string host;           // validated (proxy_host.hpp): a name, or a numeric address without brackets
    bool numeric_host = false;  // host is a numeric address
    int port = 0;
    std::string upstream_bytes;  // to send the destination first (plain HTTP: the rewritten request)
};

struct ParseStep {
    enum class State {
        need_more,  // not a whole request yet
        reply,      // send `reply`, drop `consumed` bytes, then parse again (SOCKS5 greeting)
        done,       // `request` is complete
        bad,        // send `reply` and close: `why` says what was wrong
    };
    State state = State::need_more;
    std::string reply, why;
    size_t consumed = 0;
    // With `bad`: the host was refused by proxy_host.hpp's rules; `request`
    // holds the raw host and port, for the refusal record.
    bool refused_host = false;
    ProxyRequest request;
};

// The longest request head the proxy reads before refusing it.
constexpr size_t kMaxRequestHead = 16 * 1024;

// `greeted`: the SOCKS5 greeting was answered already.
ParseStep parse_proxy_request(std::string_view bytes, bool greeted);

enum class ProxyOutcome { connected, refused, unreachable };
// What the client is told: HTTP status lines or SOCKS5 replies. `message`
// is the text of an HTTP error body (one line).
std::string proxy_reply(ProxyProtocol protocol, ProxyOutcome outcome, const std::string& message);

}  // namespace oms::core
