#include "child_steps.hpp"

#include <errno.h>
#include <linux/capability.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace oms::landlock {

namespace {

// Capabilities a root command keeps: the ones that make ordinary file work
// (ownership, permission bits) and user switching behave as root expects.
// Landlock and the mount masks still apply to every one of them.
constexpr int kKept[] = {CAP_CHOWN, CAP_DAC_OVERRIDE, CAP_FOWNER, CAP_FSETID, CAP_KILL,
                         CAP_SETGID, CAP_SETUID, CAP_NET_BIND_SERVICE};

bool kept(int cap) {
    for (int k : kKept)
        if (k == cap) return true;
    return false;
}

}  // namespace

void drop_capabilities(const ChildSpec& spec) {
    __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
    __user_cap_data_struct data[2]{};
    if (syscall(SYS_capget, &header, data) != 0) child_fail(spec, "read the capabilities");
    // The bounding set decides what any later exec can gain back; CAP_SETPCAP
    // (needed to shrink it) is dropped last. An ordinary user started without
    // a user namespace (rung 3) has no CAP_SETPCAP and nothing to drop there:
    // no_new_privs, set next, keeps any exec from gaining a capability.
    const bool can_shrink = data[CAP_SETPCAP / 32].effective & (1u << (CAP_SETPCAP % 32));
    for (int cap = 0; can_shrink && cap <= 63; ++cap) {
        if (kept(cap) || cap == CAP_SETPCAP) continue;
        if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0 && errno != EINVAL)
            child_fail(spec, "drop a capability from the bounding set");
    }
    if (can_shrink && prctl(PR_CAPBSET_DROP, CAP_SETPCAP, 0, 0, 0) != 0 && errno != EINVAL)
        child_fail(spec, "drop CAP_SETPCAP from the bounding set");
    if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) != 0 && errno != EINVAL)
        child_fail(spec, "clear the ambient capabilities");

    for (int cap = 0; cap <= 63; ++cap) {
        if (kept(cap)) continue;
        uint32_t bit = 1u << (cap % 32);
        data[cap / 32].effective &= ~bit;
        data[cap / 32].permitted &= ~bit;
        data[cap / 32].inheritable &= ~bit;
    }
    if (syscall(SYS_capset, &header, data) != 0) child_fail(spec, "lower the capabilities");
}

}  // namespace oms::landlock
