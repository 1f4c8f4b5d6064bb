// Which command asked a name of the warm container's resolver. The resolver
// serves every command of the container at once, and a datagram says only
// the asking socket's port; the process holding that socket is found in
// /proc (the socket's inode in /proc/net/udp or tcp, then the process with a
// descriptor on it), and its session names the command (each command is a
// session of its own, led by the runner's child).
//
// A report only: a process that already closed its socket, or that hides
// its descriptors (non-dumpable), is not found; the runner then tells every
// running command (lookup_reports.hpp).
#pragma once
#include <oms/dns_responder.hpp>

#include <sys/types.h>

namespace oms::docker::runner {

struct AskerProcess {
    pid_t pid = 0;      // 0: not found
    pid_t session = 0;
};

// The process holding the socket that asked, and its session.
AskerProcess process_of(const dns_responder::Asker& asker);

// The parent of `pid` (0 when it is gone or unreadable), from /proc/PID/stat.
pid_t parent_of(pid_t pid);

}  // namespace oms::docker::runner
