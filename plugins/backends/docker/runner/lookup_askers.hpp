// Which command asked a name of the warm container's resolver. The resolver
// serves every command of the container at once, and a question says only
// the asking socket's address and port; the process holding that socket is found in
// /proc (the socket's inode in /proc/net/udp or tcp, then the process with a
// descriptor on it), and its session names the command (each command is a
// session of its own, led by the runner's child).
//
// A report only: a process that already closed its socket, that hides its
// descriptors (non-dumpable), or whose socket cannot be told from another,
// is not found; the runner then tells every running command
// (lookup_reports.hpp).
#pragma once
#include <oms/dns_responder.hpp>

#include <sys/types.h>

namespace oms::docker::runner {

struct AskerProcess {
    pid_t pid = 0;      // 0: not found
    pid_t session = 0;
};

// The inode of the one socket in /proc/net's tables that can be the
// asker's: bound to the address and port the resolver saw (a UDP socket
// also on the unspecified address), its peer the resolver or, for UDP, none.
// 0 when there is none, more than one, or a table too long to read whole
// (or not read whole by `deadline`): the search never guesses.
// `deadline`: microseconds of CLOCK_MONOTONIC past which the search gives
// up (not found); 0 for none.
unsigned long asker_inode(const dns_responder::Asker& asker, long deadline = 0);

// The process holding the socket that asked, and its session.
AskerProcess process_of(const dns_responder::Asker& asker, long deadline = 0);

// How much of the resolver's time the searches may take. The resolver
// answers every command of the container, and a command can make each
// search long (many sockets, processes or descriptors); past this budget an
// asker counts as not found, so the answers stay fast for every command
// (each search also stops where the budget ends).
class SearchBudget {
public:
    // The asker of this question, or not found when the last second's
    // searches used the budget up.
    AskerProcess process_of(const dns_responder::Asker& asker);

private:
    static constexpr long kMicrosecondsEachSecond = 100000;  // a tenth of the resolver's time
    long window_start_ = 0;  // microseconds, CLOCK_MONOTONIC
    long spent_ = 0;
};

// The parent of `pid` (0 when it is gone or unreadable), from /proc/PID/stat.
pid_t parent_of(pid_t pid);

}  // namespace oms::docker::runner
