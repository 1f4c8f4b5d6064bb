#include "runner_request.hpp"

#include "runner_protocol.hpp"

#include <cstdlib>

namespace oms::docker::runner {

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
    req.report_lookups = at < parts.size() && parts[at] == kReportLookups;
    req.report_untraced = req.report_lookups && at + 1 < parts.size() && parts[at + 1] == kReportUntraced;
    return true;
}

}  // namespace oms::docker::runner
