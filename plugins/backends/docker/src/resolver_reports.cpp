#include "resolver_reports.hpp"

#include "private_socket.hpp"
#include "connect_refusals.hpp"

#include "../runner/runner_protocol.hpp"

#include <oms/dns_responder.hpp>
#include <oms/refusal_log.hpp>
#include <oms/sdk.hpp>

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string_view>
#include <vector>

namespace oms::docker {

ReportLine report_line(const char* line, size_t size) {
    std::string_view text(line, size);
    if (text.empty() || text.back() != '\n') return {};
    text.remove_suffix(1);
    std::vector<std::string_view> fields;
    for (size_t start = 0;;) {
        const size_t tab = text.find('\t', start);
        fields.push_back(text.substr(start, tab == std::string_view::npos ? std::string_view::npos : tab - start));
        if (tab == std::string_view::npos) break;
        start = tab + 1;
    }
    if (fields.size() != 5 || fields[0] != "refused" || fields[1].empty() || fields[2].empty()) return {};
    return ReportLine{std::string(fields[1]), std::string(fields[2]), std::string(fields[3])};
}

std::string refused_lookup_name(const char* line, size_t size) {
    const ReportLine fields = report_line(line, size);
    if (fields.source != "resolver" || fields.port != "0") return "";
    return fields.host;
}

ResolverReports::ResolverReports(const std::string& socket_path, const std::string& refusal_file) {
    report_fd_ = refusal_log::open_for_append(refusal_file.c_str());
    try {
        socket_ = bind_privately(socket_path, SOCK_DGRAM, 0666, "the container resolver's reports");
    } catch (...) {
        if (report_fd_ >= 0) close(report_fd_);
        throw;
    }
    if (pipe2(stop_, O_CLOEXEC) != 0) {
        const std::string why = std::strerror(errno);
        close(socket_);
        if (report_fd_ >= 0) close(report_fd_);
        throw sdk::Error(OMS_ERR_FAILED, "docker: cannot serve the container resolver's reports: " + why);
    }
    try {
        thread_ = std::thread([this] { serve(); });
    } catch (...) {
        // No thread: what is queued is still taken at the end.
    }
}

ResolverReports::~ResolverReports() {
    if (thread_.joinable()) {
        const char stop = 1;
        (void)!write(stop_[1], &stop, 1);
        thread_.join();
    }
    if (socket_ >= 0) take_queued();  // one bounded pass: senders that go on cannot hold the run's end
    close(stop_[0]);
    close(stop_[1]);
    if (socket_ >= 0) close(socket_);
    if (report_fd_ >= 0) close(report_fd_);
}

// Back to poll after each bounded pass, so the stop pipe is seen however
// fast senders write. Once kMaxLines are taken the socket is closed: later
// sends fail in the sender and cost oms nothing.
void ResolverReports::serve() {
    for (;;) {
        pollfd fds[2] = {{socket_, POLLIN, 0}, {stop_[0], POLLIN, 0}};
        if (poll(fds, 2, -1) < 0 && errno != EINTR) return;
        if (fds[1].revents) return;
        if (fds[0].revents) take_queued();
        if (taken_ >= kMaxLines) {
            close(socket_);
            socket_ = -1;
            return;
        }
    }
}

void ResolverReports::take_queued() {
    char datagram[refusal_log::kMaxLine + 1];
    for (int pass = 0; pass < kDatagramsAPass && taken_ < kMaxLines; ++pass) {
        const ssize_t size = recv(socket_, datagram, sizeof datagram, MSG_DONTWAIT | MSG_TRUNC);
        if (size < 0) return;  // nothing left (EAGAIN), or the socket failed
        if (static_cast<size_t>(size) <= refusal_log::kMaxLine) take(datagram, static_cast<size_t>(size));
    }
}

void ResolverReports::take(const char* datagram, size_t size) {
    if (taken_ >= kMaxLines) return;
    const ReportLine line = report_line(datagram, size);
    if (line.source == runner::kRouteSource || line.source == runner::kLoopbackSource) {
        const auto kind = line.source == runner::kRouteSource ? RefusedConnect::no_route : RefusedConnect::nothing_listens;
        if (append_connect_refusal(report_fd_, kind, line.host, line.port)) ++taken_;
        return;
    }
    const std::string name = refused_lookup_name(datagram, size);
    if (name.empty()) return;
    ++taken_;
    refusal_log::append(report_fd_, "resolver", name.c_str(), name.size(), 0, dns_responder::kNoSuchHost);
}

}  // namespace oms::docker
