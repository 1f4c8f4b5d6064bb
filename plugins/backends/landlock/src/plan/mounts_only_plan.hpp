// Rung 2 of the confinement ladder: namespaces without Landlock (a kernel
// built without it, or with it left out of the lsm= boot list). The full
// mode's mounts already keep HOME to its skeleton, the root read-only, the
// temp folders private and the masks in place; Landlock's one rule the
// mounts did not also carry is the device allow-list. So /dev becomes a
// fresh read-only tmpfs holding only the device files the path rules grant,
// bound from the host's /dev: every other device file (disks, /dev/kmsg,
// /dev/mem...) has no name inside.
#pragma once
#include "sandbox_plan.hpp"

namespace oms::landlock {

// Turns a full-mode plan into the plan of a start without Landlock: the
// device files of its path rules become Plan::fresh_dev_keeps. Throws
// oms::sdk::Error (OMS_ERR_UNSUPPORTED) when only Landlock could keep HOME
// closed (Plan::home_closed_by_landlock_only): fail closed, nothing runs.
void adapt_for_mounts_alone(Plan& plan);

}  // namespace oms::landlock
