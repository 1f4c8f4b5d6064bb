#include "lookup_reports.hpp"

#include "runner_protocol.hpp"

#include <linux/sockios.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#include <algorithm>
#include <cstdint>
#include <cstring>

namespace oms::docker::runner {

namespace {

struct ReportHeader {
    int32_t pid;
    int32_t session;
};

}  // namespace

void send_asker_report(int fd, const char* name, size_t length, const AskerProcess& asker) {
    if (fd < 0 || length == 0 || length > kMaxLookupName) return;
    char datagram[sizeof(ReportHeader) + kMaxLookupName];
    const ReportHeader header{asker.pid, asker.session};
    std::memcpy(datagram, &header, sizeof header);
    std::memcpy(datagram + sizeof header, name, length);
    (void)send(fd, datagram, sizeof header + length, MSG_DONTWAIT | MSG_NOSIGNAL);
}

bool receive_asker_report(int fd, AskerReport& report) {
    char datagram[sizeof(ReportHeader) + kMaxLookupName + 1];
    const ssize_t n = recv(fd, datagram, sizeof datagram, MSG_DONTWAIT);
    if (n < 0) return false;
    if (size_t(n) <= sizeof(ReportHeader) || size_t(n) > sizeof(ReportHeader) + kMaxLookupName) {
        report.name.clear();  // not one of the resolver's: taken, and ignored
        return true;
    }
    ReportHeader header;
    std::memcpy(&header, datagram, sizeof header);
    report.asker = AskerProcess{header.pid, header.session};
    report.name.assign(datagram + sizeof header, size_t(n) - sizeof header);
    return true;
}

namespace {

// A frame's share of the send buffer: the kernel counts each small write at
// its allocation size, about a kilobyte, not its bytes.
constexpr int kFrameAllowance = 4096;

// Whether one more frame leaves the status that ends the command room in
// `conn`'s send buffer: frames stop at half of it, so an oms that stopped
// reading (stopped, or slow) never makes the runner's status write wait.
bool leaves_room_for_status(int conn) {
    int queued = 0, buffer = 0;
    socklen_t size = sizeof buffer;
    if (ioctl(conn, SIOCOUTQ, &queued) != 0 || getsockopt(conn, SOL_SOCKET, SO_SNDBUF, &buffer, &size) != 0)
        return false;
    return queued + kFrameAllowance < buffer / 2;
}

}  // namespace

void tell_command(int conn, CommandLookups& told, const std::string& name, bool traced) {
    if (!told.wanted || conn < 0 || name.empty() || name.size() > kMaxLookupName) return;
    if (!leaves_room_for_status(conn)) return;
    if (traced ? told.sent.size() - told.untraced >= kMaxTracedLookups : told.untraced >= kMaxUntracedLookups) return;
    if (std::find(told.sent.begin(), told.sent.end(), name) != told.sent.end()) return;
    char frame[8 + kMaxLookupName];
    // An untraced name says so, where this oms can tell it apart: it was
    // told to every running command, and may be another's.
    const uint32_t word = traced || !told.untraced_frames ? kLookupFrame : kUntracedLookupFrame;
    const uint32_t head[2] = {word, uint32_t(name.size())};
    std::memcpy(frame, head, sizeof head);
    std::memcpy(frame + sizeof head, name.data(), name.size());
    // A unix stream socket takes a frame this small whole or not at all.
    if (send(conn, frame, sizeof head + name.size(), MSG_DONTWAIT | MSG_NOSIGNAL) ==
        ssize_t(sizeof head + name.size())) {
        told.sent.push_back(name);
        if (!traced) ++told.untraced;
    }
}

void tell_command_refused(int conn, CommandLookups& told, const connect_watch::Call& call) {
    if (!told.wanted || conn < 0 || (call.family != AF_INET && call.family != AF_INET6)) return;
    if (!leaves_room_for_status(conn) || !told.routes.first_time(call)) return;
    char frame[8 + kAddressFrameSize] = {0};
    const uint32_t head[2] = {call.off_loopback ? kRouteFrame : kLoopbackFrame, kAddressFrameSize};
    const uint16_t family = static_cast<uint16_t>(call.family), port = call.port;
    std::memcpy(frame, head, sizeof head);
    std::memcpy(frame + 8, &family, 2);
    std::memcpy(frame + 10, &port, 2);
    std::memcpy(frame + 12, call.address, sizeof call.address);
    (void)!send(conn, frame, sizeof frame, MSG_DONTWAIT | MSG_NOSIGNAL);
}

}  // namespace oms::docker::runner
