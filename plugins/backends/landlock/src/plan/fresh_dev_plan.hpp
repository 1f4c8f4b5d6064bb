// The device files a run with namespaces sees: /dev is a fresh read-only
// tmpfs holding only the device files the path rules grant, bound from the
// host's /dev, and every other mount of the run is nodev. So a device file
// no rule grants has no name in /dev, and one elsewhere (a chroot's /dev, a
// bind of the host's /dev under /mnt) cannot be opened: Landlock's device
// rules alone left the latter readable wherever reads are granted (outside
// HOME), and a disk's file mode lets root read it.
//
// On rung 2 (namespaces without Landlock) the mounts carry every file rule;
// a run whose HOME only Landlock could keep closed is refused there.
#pragma once
#include "sandbox_plan.hpp"

namespace oms::landlock {

// Sets Plan::fresh_dev and its keeps from the device files of the path rules.
void plan_fresh_dev(Plan& plan);

// Turns a full-mode plan into the plan of a start without Landlock. Throws
// oms::sdk::Error (OMS_ERR_UNSUPPORTED) when only Landlock could keep HOME
// closed (Plan::home_closed_by_landlock_only): fail closed, nothing runs.
void adapt_for_mounts_alone(Plan& plan);

}  // namespace oms::landlock
