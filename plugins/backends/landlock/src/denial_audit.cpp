#include "denial_audit.hpp"

#include <oms/scoped_fd.hpp>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <linux/audit.h>
#include <linux/netlink.h>
#include <sys/socket.h>
#include <unistd.h>

namespace oms::landlock {

namespace {

enum class AuditState { unreadable, off, on };

// AUDIT_GET over the audit netlink socket: refused without CAP_AUDIT_CONTROL
// (every ordinary user, and root inside a user namespace).
AuditState audit_state() {
    sdk::ScopedFd fd(socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_AUDIT));
    if (fd.get() < 0) return AuditState::unreadable;
    struct {
        nlmsghdr header;
    } request{};
    request.header.nlmsg_len = sizeof request;
    request.header.nlmsg_type = AUDIT_GET;
    request.header.nlmsg_flags = NLM_F_REQUEST;
    if (send(fd.get(), &request, sizeof request, 0) < 0) return AuditState::unreadable;
    alignas(nlmsghdr) char reply[512];
    timeval wait{1, 0};
    setsockopt(fd.get(), SOL_SOCKET, SO_RCVTIMEO, &wait, sizeof wait);
    ssize_t got = recv(fd.get(), reply, sizeof reply, 0);
    if (got < static_cast<ssize_t>(NLMSG_LENGTH(sizeof(audit_status)))) return AuditState::unreadable;
    const auto* header = reinterpret_cast<const nlmsghdr*>(reply);
    if (header->nlmsg_type != AUDIT_GET) return AuditState::unreadable;  // NLMSG_ERROR: EPERM
    audit_status status;
    std::memcpy(&status, NLMSG_DATA(header), sizeof status);
    return status.enabled ? AuditState::on : AuditState::off;
}

}  // namespace

std::string denial_report_status(int landlock_abi) {
    const std::string prefix = "denial reports: no, ask `oms explain` instead (";
    if (landlock_abi < 7)
        return prefix + "Landlock records denials only from ABI 7, this kernel has " + std::to_string(landlock_abi) + ")";
    switch (audit_state()) {
    case AuditState::unreadable:
        return prefix + "Landlock records denials in the kernel audit, which needs CAP_AUDIT_READ or "
                        "CAP_AUDIT_CONTROL to read; this user has neither)";
    case AuditState::off:
        return prefix + "the kernel audit is off, so Landlock records nothing; oms does not switch on "
                        "system-wide auditing)";
    case AuditState::on:
        return prefix + "the kernel audit is on: root finds Landlock's records in the audit log "
                        "(type LANDLOCK_ACCESS); oms does not read them)";
    }
    return prefix + "unknown)";
}

}  // namespace oms::landlock
