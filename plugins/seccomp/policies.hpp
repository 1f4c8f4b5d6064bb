// One policy per purpose, each a function building its filter with
// libseccomp; generate_filters.cpp turns them into the tables the backends
// embed.
#pragma once
#include <linux/filter.h>

#include <vector>

namespace oms::seccomp_gen {

// Every command of the landlock backend. `datagrams`: UDP sockets too, for a
// run in its own network namespace (they reach only its lo).
std::vector<sock_filter> landlock_policy(bool datagrams);

// Stacked on the landlock command's filter in a run with its own network:
// connect waits for the run's init (or the docker runner), which notes an
// address off the loopback and lets the call go on unchanged.
std::vector<sock_filter> connect_watch_policy();

// Every command the docker runner starts, stacked on Docker's own profile.
std::vector<sock_filter> docker_runner_policy();

}  // namespace oms::seccomp_gen
