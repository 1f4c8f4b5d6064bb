// The one line said when a start failed: which piece the machine refused
// and how to get it, read from the failed step and the kernel's switches
// for user namespaces (Debian's unprivileged_userns_clone, the count limit
// max_user_namespaces, Ubuntu's AppArmor restriction).
#pragma once
#include <optional>
#include <string>

namespace oms::landlock {

// The switches as read from /proc/sys (nullopt: the file is absent here).
struct UserNamespaceSwitches {
    std::optional<long> unprivileged_userns_clone;            // kernel.unprivileged_userns_clone
    std::optional<long> max_user_namespaces;                  // user.max_user_namespaces
    std::optional<long> apparmor_restrict_unprivileged_userns;  // kernel.apparmor_restrict_unprivileged_userns
};

UserNamespaceSwitches read_user_namespace_switches();

// `step` is the child step that failed ("" when the namespaces could not be
// created), `error_number` its errno, `as_root` whether oms runs as root
// (then no user namespace is made).
std::string start_refusal(const std::string& step, int error_number, bool as_root,
                          const UserNamespaceSwitches& switches);

}  // namespace oms::landlock
