#include "child_steps.hpp"

#include "landlock_uapi.hpp"
#include <oms/openat2.hpp>

#include <errno.h>
#include <stddef.h>
#include <fcntl.h>
#include <unistd.h>

namespace oms::landlock {

namespace {

// The attribute size tells the kernel which fields we fill: an older kernel
// refuses fields it does not know.
size_t attr_size(int abi) {
    if (abi >= 6) return sizeof(uapi::RulesetAttr);
    if (abi >= 4) return offsetof(uapi::RulesetAttr, scoped);
    return offsetof(uapi::RulesetAttr, handled_access_net);
}

// Rule paths are canonical when planned (no symbolic link in them), and a
// link in one now means a folder was swapped since: a process that can
// write the temp folder (a command left running by an earlier run, say)
// could replace the fresh run folder with a link to HOME and have this run's
// write rule land there. So no component may be a link: the command does
// not run.
int open_for_rule(const char* path) {
    int fd = sdk::open_no_links(path);
    if (fd < 0 && errno == ENOSYS) fd = open(path, O_PATH | O_NOFOLLOW | O_CLOEXEC);  // before Linux 5.6
    return fd;
}

void add_path_rules(const ChildSpec& spec, int ruleset) {
    for (const ChildPathRule& rule : spec.path_rules) {
        int fd = open_for_rule(rule.path);
        if (fd < 0) {
            if (errno == ENOENT) continue;  // gone since planning: one right fewer, never more
            if (errno == ELOOP) child_fail(spec, "open for a Landlock rule (a link appeared in its path)", rule.path);
            child_fail(spec, "open for a Landlock rule", rule.path);
        }
        uapi::PathBeneathAttr attr{rule.rights, fd};
        if (uapi::add_rule(ruleset, uapi::kRulePathBeneath, &attr) != 0)
            child_fail(spec, "add a Landlock rule for", rule.path);
        close(fd);
    }
}

void add_port_rules(const ChildSpec& spec, int ruleset, const std::vector<uint16_t>& ports, uint64_t right) {
    for (uint16_t port : ports) {
        uapi::NetPortAttr attr{right, port};
        if (uapi::add_rule(ruleset, uapi::kRuleNetPort, &attr) != 0) child_fail(spec, "add a Landlock port rule");
    }
}

// In its own network namespace the command sees only `lo`: the namespace is
// the boundary, so any loopback port may be bound and connected (test
// servers), and the relayed ports stay the relay's (relay_socket.hpp). A run
// on the host's network (the trusted listener) keeps the port allow-list.
uint64_t filtered_net_rights(const ChildSpec& spec) { return spec.own_network ? 0 : spec.features.net_rights; }

}  // namespace

void apply_landlock(const ChildSpec& spec) {
    const KernelFeatures& f = spec.features;
    if (f.abi == 0) return;  // only reachable with best effort, after a warning
    uapi::RulesetAttr attr{f.fs_rights, filtered_net_rights(spec), f.scopes};
    int ruleset = static_cast<int>(uapi::create_ruleset(&attr, attr_size(f.abi), 0));
    if (ruleset < 0) child_fail(spec, "create the Landlock ruleset");
    add_path_rules(spec, ruleset);
    if (f.has_tcp() && filtered_net_rights(spec) != 0) {
        add_port_rules(spec, ruleset, spec.connect_ports, uapi::kNetConnectTcp);
        add_port_rules(spec, ruleset, spec.bind_ports, uapi::kNetBindTcp);
    }
    if (uapi::restrict_self(ruleset) != 0) child_fail(spec, "enforce the Landlock ruleset");
    close(ruleset);
}

void apply_seccomp(const ChildSpec& spec) {
    if (!spec.features.seccomp || !spec.seccomp) return;
    int error = install_seccomp_program(*spec.seccomp);
    if (error == 0 && spec.extra_seccomp) error = install_seccomp_program(*spec.extra_seccomp);
    if (error != 0) child_fail(spec, "install the seccomp filter", nullptr, error);
}

}  // namespace oms::landlock
