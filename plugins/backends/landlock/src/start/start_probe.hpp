// Whether this backend can really start a command here: a confined `true`
// started through the very launcher and child steps a run uses (user and
// PID namespaces, the mount and network namespaces, the read-only root, a
// private /tmp, Landlock, seccomp, exec). A feature list says what the
// kernel has; only a start says what a container, a seccomp filter around
// oms or an AppArmor restriction of user namespaces leaves of it.
#pragma once
#include "kernel_features.hpp"
#include "seccomp_program.hpp"

#include <string>

namespace oms::landlock {

struct StartVerdict {
    bool started = false;
    std::string refusal;  // one line naming what is missing and how to get it (when !started)
};

// Runs the probe (tens of milliseconds); never throws.
StartVerdict probe_a_start(const KernelFeatures& features, const SeccompProgram& seccomp, bool watch_connects);

}  // namespace oms::landlock
