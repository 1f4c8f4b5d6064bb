// A command's request as the runner receives it (runner_protocol.hpp): the
// command's three descriptors and the payload's strings. The payload comes
// from oms over a socket only oms can reach, and is still checked in full:
// every count against the strings that are there.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace oms::docker::runner {

struct Request {
    int fds[3] = {-1, -1, -1};
    std::string cwd;
    std::vector<std::string> argv, env;
    bool report_lookups = false;
    bool report_untraced = false;  // untraced names in frames of their own (kReportUntraced)
    std::vector<uint16_t> run_ports;  // the run's own ports, held for this command alone (kRunPorts)
};

// Reads the payload's strings (cwd, argc, argv..., envc, env..., then the
// options kReportLookups, kReportUntraced and kRunPorts) into `req`; false
// when it is malformed or holds an option this runner does not know: a
// newer oms asking for more than the runner can do gets no command run.
bool parse_request(const std::string& payload, Request& req);

}  // namespace oms::docker::runner
