#include "start_refusal.hpp"

#include <string.h>

#include <fstream>

namespace oms::landlock {

namespace {

std::optional<long> read_switch(const char* path) {
    std::ifstream in(path);
    long value = 0;
    if (!(in >> value)) return std::nullopt;
    return value;
}

bool step_mentions(const std::string& step, const char* word) { return step.find(word) != std::string::npos; }

// The child steps that need the right to mount in the new namespace.
bool is_mount_step(const std::string& step) {
    for (const char* word : {"mount", "tmpfs", "skeleton", "read-only", "copy the", "put back", "/ of the"})
        if (step_mentions(step, word)) return true;
    return false;
}

// The child steps that need the new user namespace to grant capabilities.
bool is_namespace_step(const std::string& step) {
    return step.empty() || step.rfind("write", 0) == 0 || step_mentions(step, "namespaces");
}

const char* kAppArmorLine =
    "landlock: user namespaces are refused here (kernel.apparmor_restrict_unprivileged_userns=1): give oms an "
    "AppArmor profile with `userns,` (docs/user-guide.md, \"Ubuntu 24.04\"), or run as root";

std::string failed(const std::string& step, int error_number) {
    return "could not " + (step.empty() ? std::string("create the namespaces") : step) + ": " + strerror(error_number);
}

std::string user_namespace_refusal(const std::string& step, int error_number, const UserNamespaceSwitches& s) {
    if (s.apparmor_restrict_unprivileged_userns.value_or(0) == 1) return kAppArmorLine;
    if (s.unprivileged_userns_clone && *s.unprivileged_userns_clone == 0)
        return "landlock: user namespaces are disabled for ordinary users here (kernel.unprivileged_userns_clone=0): "
               "set it to 1 (sysctl -w kernel.unprivileged_userns_clone=1), or run as root";
    if (s.max_user_namespaces && *s.max_user_namespaces == 0)
        return "landlock: user namespaces are disabled here (user.max_user_namespaces=0): raise it (sysctl -w "
               "user.max_user_namespaces=15000), or run as root";
    return "landlock: user namespaces are refused here (" + failed(step, error_number) +
           "; no kernel switch forbids them, so a seccomp filter or a container's policy does): allow them (docker: "
           "--security-opt seccomp=unconfined), or run as root";
}

std::string root_namespace_refusal(const std::string& step, int error_number) {
    return "landlock: namespaces are refused here (" + failed(step, error_number) +
           "; a container without CAP_SYS_ADMIN, or a seccomp filter): allow them (docker: --cap-add SYS_ADMIN "
           "--security-opt seccomp=unconfined)";
}

std::string mount_refusal(const std::string& step, int error_number, bool as_root, const UserNamespaceSwitches& s) {
    if (!as_root && s.apparmor_restrict_unprivileged_userns.value_or(0) == 1) return kAppArmorLine;
    return "landlock: mounts are refused in the sandbox's namespace (" + failed(step, error_number) +
           "; a container without CAP_SYS_ADMIN, or a filter refusing mount): allow them (docker: --cap-add "
           "SYS_ADMIN --security-opt seccomp=unconfined --security-opt apparmor=unconfined)" +
           (as_root ? "" : ", or run as root");
}

}  // namespace

UserNamespaceSwitches read_user_namespace_switches() {
    UserNamespaceSwitches s;
    s.unprivileged_userns_clone = read_switch("/proc/sys/kernel/unprivileged_userns_clone");
    s.max_user_namespaces = read_switch("/proc/sys/user/max_user_namespaces");
    s.apparmor_restrict_unprivileged_userns = read_switch("/proc/sys/kernel/apparmor_restrict_unprivileged_userns");
    return s;
}

std::string start_refusal(const std::string& step, int error_number, bool as_root,
                          const UserNamespaceSwitches& switches) {
    if (is_namespace_step(step))
        return as_root ? root_namespace_refusal(step, error_number)
                       : user_namespace_refusal(step, error_number, switches);
    if (is_mount_step(step)) return mount_refusal(step, error_number, as_root, switches);
    if (step_mentions(step, "Landlock"))
        return "landlock: Landlock is refused here (" + failed(step, error_number) +
               "): enable it (CONFIG_SECURITY_LANDLOCK, landlock in the lsm= boot list)";
    if (step_mentions(step, "seccomp"))
        return "landlock: seccomp filters are refused here (" + failed(step, error_number) +
               "): enable CONFIG_SECCOMP_FILTER";
    return "landlock: a confined start fails here (" + failed(step, error_number) + ")";
}

}  // namespace oms::landlock
