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
    int rung = 0;         // the rung that started: 1 (full mode), 2 (namespaces alone) or 3 (Landlock alone)
    std::string above;    // rungs 2 and 3: why the full mode did not start (one line)
};

// How the probe starts: with namespaces (the full mode, or rung 2 on a
// kernel without Landlock), or rung 3 (none, with its second seccomp filter).
struct StartMode {
    bool namespaces = true;
    const SeccompProgram* seccomp = nullptr;
    const SeccompProgram* extra_seccomp = nullptr;
    bool watch_connects = false;
};

// Runs the probe (tens of milliseconds); never throws.
StartVerdict probe_a_start(const KernelFeatures& features, const StartMode& mode);

}  // namespace oms::landlock
