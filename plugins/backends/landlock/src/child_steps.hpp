// The steps of the child between fork and exec, one file each. They run in a
// forked copy of a threaded process: no allocation, no locks, no exceptions.
// Each returns normally or ends the child through child_fail().
#pragma once
#include "child_spec.hpp"

namespace oms::landlock {

// Reports `step` (+ optional path) and errno to the parent, then _exit(127).
[[noreturn]] void child_fail(const ChildSpec& spec, const char* step, const char* path = nullptr,
                             int error_number = -1);

void enter_namespaces(const ChildSpec& spec);      // user (non-root), mount, network
void apply_mounts(const ChildSpec& spec);          // pins, read-only binds, hidden paths
void setup_loopback(const ChildSpec& spec);        // lo up, relay listeners handed to the parent
void drop_capabilities(const ChildSpec& spec);     // bounding, ambient, effective sets
void apply_landlock(const ChildSpec& spec);        // the allow-list ruleset
void apply_seccomp(const ChildSpec& spec);         // no_new_privs is set before

}  // namespace oms::landlock
