// HOME inside the run is a skeleton: a read-only tmpfs holding only the
// paths the policy grants below HOME (the worktree, toolchain roots, PATH
// entries, read-only and read-write mounts, the run's own folders), each
// bound back at its real path with the rights it had, and the folders on the
// way to them as empty folders. Names under the real HOME that no rule opens
// (~/.ssh, another project) do not exist inside, so listing can be granted
// from `/` down (Landlock's read_dir is inherited by every folder below the
// one it is granted on): `ls /`, `ls /home` and a glob over `/*` work, and
// listing reads no file.
//
// Without a HOME, listing is granted (everything but /dev is readable
// already). No skeleton, and no listing of the folders above HOME, when it
// could not keep the policy's meaning: HOME is `/` or missing, or a mount that
// stays writable (a write root that is not a private temp folder, a scratch
// tree) holds HOME: HOME must then stay writable as it is. When a read root
// holds HOME nothing in it is closed: no skeleton, and listing is granted.
#pragma once
#include "sandbox_plan.hpp"

namespace oms::landlock {

// Fills plan.home_skeleton, home_keeps, home_mode and list_from_root, and
// moves the mounts and rules planned for names under HOME that the skeleton
// does not have to `not_present`.
void plan_home_skeleton(Plan& plan, const oms::sdk::Context& context, const oms::sdk::Policy& policy);

}  // namespace oms::landlock
