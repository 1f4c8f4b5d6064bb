#include "oms/core/proxy_host.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>

#include <algorithm>
#include <cctype>

namespace oms::core {

namespace {

constexpr size_t kMaxName = 253, kMaxLabel = 63;

bool is_label_character(char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_';
}

bool is_label(std::string_view label) {
    return !label.empty() && label.size() <= kMaxLabel && label.front() != '-' && label.back() != '-' &&
           std::all_of(label.begin(), label.end(), is_label_character);
}

// A last label of digits alone, or a 0x form: inet_aton, and so getaddrinfo,
// reads such a "name" as an address.
bool is_numeric_label(std::string_view label) {
    if (label.size() > 1 && label[0] == '0' && (label[1] == 'x' || label[1] == 'X')) return true;
    return std::all_of(label.begin(), label.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
}

std::string lower(std::string_view text) {
    std::string out(text);
    for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

// The canonical text of a strict numeric address, or "" when `text` is not one.
std::string canonical_address(const std::string& text) {
    unsigned char bytes[sizeof(in6_addr)];
    char out[INET6_ADDRSTRLEN] = {0};
    if (inet_pton(AF_INET, text.c_str(), bytes) == 1) return inet_ntop(AF_INET, bytes, out, sizeof out);
    if (inet_pton(AF_INET6, text.c_str(), bytes) == 1) return inet_ntop(AF_INET6, bytes, out, sizeof out);
    return "";
}

ValidatedHost refused(std::string why) {
    ValidatedHost v;
    v.why = std::move(why);
    return v;
}

}  // namespace

bool is_host_name(std::string_view name) {
    if (name.empty() || name.size() > kMaxName) return false;
    std::string_view last;
    for (size_t at = 0;;) {
        const size_t dot = name.find('.', at);
        last = name.substr(at, dot == std::string_view::npos ? std::string_view::npos : dot - at);
        if (!is_label(last)) return false;
        if (dot == std::string_view::npos) break;
        at = dot + 1;
    }
    return !is_numeric_label(last);
}

ValidatedHost validate_proxy_host(std::string_view raw) {
    for (char c : raw) {
        const auto byte = static_cast<unsigned char>(c);
        if (byte < 0x20 || byte >= 0x7f) return refused("the host has a control or non-ASCII byte");
    }
    // A numeric address is taken in its strict form only (inet_pton: a
    // dotted quad of four decimal parts, or IPv6 without a zone).
    if (const std::string address = canonical_address(std::string(raw)); !address.empty()) {
        ValidatedHost v;
        v.ok = v.numeric = true;
        v.host = address;
        return v;
    }
    if (raw.find_first_of("%@ ") != std::string_view::npos)
        return refused("the host has a percent-escape, user information or a space");
    std::string name = lower(raw);
    if (!name.empty() && name.back() == '.') name.pop_back();
    if (!is_host_name(name))
        return refused("not a host name (letters, digits and hyphens in dot-separated labels) nor a numeric address");
    ValidatedHost v;
    v.ok = true;
    v.host = std::move(name);
    return v;
}

}  // namespace oms::core
