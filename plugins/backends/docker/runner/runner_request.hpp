// A command's request as the runner receives it (runner_protocol.hpp): the
// command's three descriptors and the payload's strings. The payload comes
// from oms over a socket only oms can reach, and is still checked in full:
// every count against the strings that are there.
#pragma once
#include <string>
#include <vector>

namespace oms::docker::runner {

struct Request {
    int fds[3] = {-1, -1, -1};
    std::string cwd;
    std::vector<std::string> argv, env;
    bool report_lookups = false;
    bool report_untraced = false;  // untraced names in frames of their own (kReportUntraced)
};

// Reads the payload's strings (cwd, argc, argv..., envc, env..., then the
// optional kReportLookups and kReportUntraced) into `req`; false when it is
// malformed.
bool parse_request(const std::string& payload, Request& req);

}  // namespace oms::docker::runner
