// What the running kernel can enforce: the Landlock ABI version and the
// guarantees that depend on it. One place decides "enforceable or not", so
// doctor, render and spawn tell the same story.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace oms::landlock {

struct KernelFeatures {
    int abi = 0;               // 0: Landlock unavailable
    bool seccomp = false;      // seccomp filters can be installed
    uint64_t fs_rights = 0;    // filesystem rights the ABI knows
    uint64_t net_rights = 0;   // network rights the ABI knows (ABI 4)
    uint64_t scopes = 0;       // scopes the ABI knows (ABI 6)

    bool has_refer() const { return abi >= 2; }
    bool has_truncate() const { return abi >= 3; }
    bool has_tcp() const { return abi >= 4; }
    bool has_ioctl_dev() const { return abi >= 5; }
    bool has_scopes() const { return abi >= 6; }
};

// Asks the kernel; `abi_cap` > 0 pretends the kernel stops at that ABI.
KernelFeatures detect_features(int abi_cap = 0);
// Derives the rights and scopes for a given ABI version (no kernel call).
KernelFeatures features_for_abi(int abi, bool seccomp);

// "host (landlock ABI 7: filesystem, TCP ports, scoped; seccomp)"
std::string summary_line(const KernelFeatures& features);
// One sentence per guarantee this kernel cannot give; empty when complete.
std::vector<std::string> missing_guarantees(const KernelFeatures& features);
// The subset of missing_guarantees that leaves a policy rule unenforced, so
// spawn refuses without best effort. (No REFER only makes renames stricter;
// no IOCTL_DEV is covered by seccomp for the dangerous terminal ioctls.)
std::vector<std::string> unenforceable(const KernelFeatures& features);

}  // namespace oms::landlock
