// The seccomp filter every sandboxed command runs under: a classic BPF
// program (generated at build time by plugins/seccomp) copied in the parent
// (so the child only installs it), refusing the syscalls that would read
// other processes, load code into the kernel, undo the mount namespace or
// open sockets other than unix and TCP.
#pragma once
#include <linux/filter.h>

#include <string>
#include <vector>

namespace oms::landlock {

struct SeccompProgram {
    std::vector<sock_filter> code;
    // Human-readable summary for `oms policy`.
    std::vector<std::string> summary;
};

// `datagrams`: UDP (and ICMP datagram) sockets are allowed too, for a run in
// its own network namespace, where they reach only its lo (test servers, the
// DNS responder); a run on the host's network never gets them.
// `watched_connects`: the summary says the init watches the connects
// (off_loopback_watch.hpp installs that filter itself).
SeccompProgram build_seccomp_program(bool datagrams, bool watched_connects);

// Installs it on the calling thread (no_new_privs must already be set).
// Returns 0 or an errno value.
int install_seccomp_program(const SeccompProgram& program);

}  // namespace oms::landlock
