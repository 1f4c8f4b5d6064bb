// Rung 3's second seccomp filter, for what the missing namespaces held:
// - socket(AF_UNIX) refused (EACCES): with no mount namespace nothing hides
//   the daemons' sockets (docker's, D-Bus's, the user's agents), and
//   Landlock does not filter a connect to a socket file; socketpair (pipes
//   between a command's own processes) still works;
// - another process's limits, priority and scheduling refused (EPERM):
//   with no PID namespace the command can name every process of yours, and
//   Landlock's scopes cover signals, not prlimit, setpriority,
//   sched_setaffinity and the like. A call on itself (pid 0) still works;
//   one naming any pid, its own children's included, is refused.
#pragma once
#include "seccomp_program.hpp"

namespace oms::landlock {

SeccompProgram build_rung3_filter();

}  // namespace oms::landlock
