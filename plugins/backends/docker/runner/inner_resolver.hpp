// The container's resolver (`--answer-dns`, given with network none): oms
// binds the sandbox's resolv.conf (nameserver 127.0.0.1) at /etc/resolv.conf
// and the runner answers every query on 127.0.0.1:53 with NXDOMAIN (the
// responder shared with the landlock backend), so a lookup fails at once
// with "no such host" instead of "try again" against nameservers the
// container cannot reach. /etc/hosts still answers first (localhost).
//
// Port 53 without capabilities: Docker starts a container's unprivileged
// ports at 0 (net.ipv4.ip_unprivileged_port_start, in the container's own
// network namespace). Where it does not, the runner says so once and lookups
// fail with "connection refused", still at once.
#pragma once
#include <sys/types.h>

#include <vector>

namespace oms::docker::runner {

// Reads `--answer-dns` at argv[argi] when present (advancing argi).
bool answer_dns_from(int& argi, int argc, char** argv);

// Binds 127.0.0.1:53 (UDP and TCP) in the calling process, which keeps the
// ports (close-on-exec) so no command can take them; false, with a note on
// stderr, when it cannot.
bool hold_dns_port();

// Forks the process answering on the held ports (see fork_helper for
// `detached`). With `report_socket` (a one-shot run: oms serves it in the
// socket folder), each name answered "no such host" is also sent there, for
// the run's refusal log. With `to_runner` (a warm container), each refusal
// goes there with the process that asked (lookup_reports.hpp). It closes
// `not_for_helper` first (see fork_helper). Returns its pid, 1 when
// detached, -1 on failure.
pid_t fork_resolver(bool detached, const char* report_socket = nullptr, const std::vector<int>& not_for_helper = {},
                    int to_runner = -1);

}  // namespace oms::docker::runner
