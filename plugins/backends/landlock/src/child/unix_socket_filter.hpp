// Rung 3's second seccomp filter: socket(AF_UNIX) refused (EACCES). With no
// mount namespace nothing hides the daemons' sockets (docker's, D-Bus's,
// the user's agents), and Landlock does not filter a connect to a socket
// file; socketpair (pipes between a command's own processes) still works.
#pragma once
#include "seccomp_program.hpp"

namespace oms::landlock {

SeccompProgram build_unix_socket_refusal();

}  // namespace oms::landlock
