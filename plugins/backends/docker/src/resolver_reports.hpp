// The container's resolver's refusals, into the run's refusal log. Under
// docker the names a command looks up are answered "no such host" by the
// runner's resolver inside the container (runner/inner_resolver.hpp), which
// cannot reach the host's file. A one-shot run's oms serves a datagram socket
// (lookups.sock) in the run's socket folder; the resolver sends each refusal
// there as one refusal_log line, and this appends it to the run's log.
//
// Only the name is taken from a datagram: the source, the port (0) and the
// rule are oms's own, and a datagram of another shape is dropped. The
// runner sends its command's refused connects there too, as lines of source
// route or loopback (connect_refusals.hpp): address and port taken, the
// rest oms's. A command
// can send to the socket too, naming hosts of its choosing, which it could
// equally do by looking them up; at most kMaxLines lines are taken per run.
#pragma once

#include <string>
#include <thread>

namespace oms::docker {

class ResolverReports {
public:
    static constexpr int kMaxLines = 1000;
    static constexpr int kDatagramsAPass = 256;  // read before looking at the stop pipe again

    // Serves `socket_path` (0666: the container's user sends to it) and
    // appends to `refusal_file`. Throws sdk::Error(OMS_ERR_FAILED) when the
    // socket cannot be made.
    ResolverReports(const std::string& socket_path, const std::string& refusal_file);
    // Stops, then takes what is still queued in one bounded pass (the
    // container is gone by then).
    ~ResolverReports();
    ResolverReports(const ResolverReports&) = delete;
    ResolverReports& operator=(const ResolverReports&) = delete;

private:
    void serve();
    void take_queued();
    void take(const char* datagram, size_t size);

    int socket_ = -1;
    int report_fd_ = -1;
    int stop_[2] = {-1, -1};
    int taken_ = 0;
    std::thread thread_;
};

// A line's fields ("refused\tSOURCE\tHOST\tPORT\tRULE\n"); empty when
// `line` has another shape.
struct ReportLine {
    std::string source, host, port;
};
ReportLine report_line(const char* line, size_t size);

// The name in a resolver refusal line ("refused\tresolver\tNAME\t0\tRULE\n"),
// or empty when `line` has another shape.
std::string refused_lookup_name(const char* line, size_t size);

}  // namespace oms::docker
