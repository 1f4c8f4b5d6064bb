#include "runner_request.hpp"

#include "runner_protocol.hpp"

#include <cstdlib>

namespace oms::docker::runner {

namespace {

// "P[,Q...]", each 1 to 65535, at least one.
bool parse_ports(const std::string& text, std::vector<uint16_t>& ports) {
    const char* at = text.c_str();
    do {
        char* end = nullptr;
        const unsigned long port = std::strtoul(at, &end, 10);
        if (end == at || port < 1 || port > 65535 || (*end != ',' && *end != '\0')) return false;
        ports.push_back(static_cast<uint16_t>(port));
        at = *end ? end + 1 : end;
    } while (*at);
    return !ports.empty();
}

// kReportUntraced only after kReportLookups, as oms sends it.
bool take_option(const std::string& option, Request& req) {
    const std::string run_ports = kRunPorts;
    if (option == kReportLookups) return req.report_lookups = true;
    if (option == kReportUntraced && req.report_lookups) return req.report_untraced = true;
    if (option.rfind(run_ports, 0) == 0 && req.run_ports.empty())
        return parse_ports(option.substr(run_ports.size()), req.run_ports);
    return false;
}

}  // namespace

bool parse_request(const std::string& payload, Request& req) {
    std::vector<std::string> parts;
    size_t start = 0;
    for (size_t i = 0; i < payload.size(); ++i)
        if (payload[i] == '\0') parts.emplace_back(payload, start, i - start), start = i + 1;
    size_t at = 0;
    auto next_count = [&](size_t& out) {
        if (at >= parts.size()) return false;
        out = std::strtoul(parts[at++].c_str(), nullptr, 10);
        return out <= parts.size() - at;
    };
    if (parts.empty()) return false;
    req.cwd = parts[at++];
    size_t argc = 0, envc = 0;
    if (!next_count(argc) || argc == 0) return false;
    req.argv.assign(parts.begin() + at, parts.begin() + at + argc);
    at += argc;
    if (!next_count(envc)) return false;
    req.env.assign(parts.begin() + at, parts.begin() + at + envc);
    at += envc;
    for (; at < parts.size(); ++at)
        if (!take_option(parts[at], req)) return false;
    return true;
}

}  // namespace oms::docker::runner
