// The start probe's verdict kept in oms's state folder, so that a run pays
// for it once per boot, kernel, user, oms build and confinement around oms
// (seccomp filters, namespaces, AppArmor label, the user namespace
// switches): any of those changing makes another probe.
#pragma once
#include "start_probe.hpp"

#include <functional>
#include <optional>
#include <string>

namespace oms::landlock {

// Everything the verdict depends on, one "name value" per line.
std::string start_probe_key(const std::string& settings);

// The verdict stored under `key` in `file`, or nullopt (absent, another key,
// not ours, unreadable).
std::optional<StartVerdict> read_cached_verdict(const std::string& file, const std::string& key);

// Stores it (0600, written aside and renamed); a failure only costs the
// next run another probe.
void write_cached_verdict(const std::string& file, const std::string& key, const StartVerdict& verdict);

// <state folder>/landlock-start-probe: $XDG_STATE_HOME/oms or
// $HOME/.local/state/oms, as the core's state folder; "" without either.
std::string start_probe_cache_file();

// The cached verdict, or a fresh probe. Only a start that worked is stored:
// a refusal is probed again at each run (it costs only where the backend
// cannot run anyway), so that a change the key cannot see (another seccomp
// filter with as many rules around oms) never keeps a machine refused.
StartVerdict cached_start_verdict(const std::string& settings, const std::function<StartVerdict()>& probe);

// Drops the stored verdict: a run's start failed after all, so the next
// probe looks again instead of trusting it.
void forget_cached_verdict();

}  // namespace oms::landlock
