// Whether oms could tell the user which paths Landlock refused. From ABI 7
// Landlock records denials through the kernel audit subsystem (records
// LANDLOCK_ACCESS and LANDLOCK_DOMAIN); reading them needs the audit netlink
// socket, audit switched on, and CAP_AUDIT_READ/CAP_AUDIT_CONTROL in the
// initial user namespace. oms does not read them: this only says why not.
#pragma once
#include <string>

namespace oms::landlock {

// One "denial reports: ..." line for doctor.
std::string denial_report_status(int landlock_abi);

}  // namespace oms::landlock
