// Rung 3 of the confinement ladder: a start without namespaces (a container
// without CAP_SYS_ADMIN, Ubuntu's restricted user namespaces), where
// Landlock alone must carry what the mount namespace carried in the full
// mode. Landlock grants rights to a folder for everything below it, so a
// protected path (a keypair or a hidden socket: no rights; .git, a pinned
// file, a scratch tree: read only) inside a granted folder is kept out by
// granting the folder's other entries one by one instead of the folder
// (which keeps only its listing), down to the protected path. The system
// temp folders, a fresh tmpfs each in the full mode, are not granted at all:
// the run's own TMPDIR and HOME, by path, are.
#pragma once
#include "sandbox_plan.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace oms::landlock {

// A path whose rights are capped at `keep` (0: none) whatever a rule on a
// folder above it grants.
struct ProtectedPath {
    std::string path;
    uint64_t keep = 0;
};

// `rules` with every rule on a folder holding a protected path replaced by
// rules on its entries (reads the folders as they are now), every rule on or
// below a protected path capped at its `keep`, and the rights of a rule on
// anything but a folder limited to the rights a file can carry.
std::vector<PathRule> split_around(const std::vector<PathRule>& rules, const std::vector<ProtectedPath>& protect);

// The protected paths of a full-mode plan: what its mounts covered.
std::vector<ProtectedPath> protected_paths(const Plan& plan);

// Turns a full-mode plan into the plan of a start without namespaces: no
// mounts, no private network (Landlock's TCP port rules instead), the path
// rules split around the protected paths.
void adapt_for_landlock_only(Plan& plan);

}  // namespace oms::landlock
