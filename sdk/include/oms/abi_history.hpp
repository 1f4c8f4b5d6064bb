// oms/abi_history.hpp: what each minor of plugin ABI 1 added, and what a
// reader or writer of an older minor gets instead. The one table of the
// compatibility promise: the host derives from it the rule kinds and flag
// bits of each minor and how a rule kind is lowered, the SDK the defaults
// of a plugin's target minor, and docs/plugin-abi.md shows it (a test
// checks every row is there). Header-only, standard library only.
#ifndef OMS_ABI_HISTORY_HPP
#define OMS_ABI_HISTORY_HPP

#include <oms/sdk.h>

#include <cstddef>
#include <cstdint>

namespace oms::abi {

// One thing a minor added: a rule kind, a struct field or a flag bit.
struct Addition {
    uint16_t minor;              // the minor that added it
    const char* what;            // as docs/plugin-abi.md's table names it
    oms_rule_kind rule_kind;     // for a rule kind: its value, else 0
    uint32_t run_flag;           // for a run flag: its bit, else 0
    uint32_t backend_flag;       // for a backend flag: its bit, else 0
    oms_rule_kind lowered_into;  // for a rule kind: the older kind the host rewrites it into (0: dropped)
    const char* older_side;      // what a plugin or host of an older minor gets instead
    // For a rule kind that only opens the sandbox (without it the sandbox
    // is more closed, never more open): a backend not declaring it has the
    // rule dropped, never the run refused, and the user is told in one
    // line, this text with {value} (the rule's number, or its text) and
    // {backend} (the backend's id) filled in. Null: not dropped.
    const char* dropped_line = nullptr;
};

inline constexpr Addition kAdditions[] = {
    {1, "rule kind WRITE_DENY_NAME (11)", OMS_RULE_WRITE_DENY_NAME, 0, 0, OMS_RULE_WRITE_DENY,
     "one WRITE_DENY per entry of that name found below the worktree when the run starts; a folder "
     "that cannot be searched refuses the run"},
    {1, "rule kind WRITE_SCRATCH_TREE (12)", OMS_RULE_WRITE_SCRATCH_TREE, 0, 0, OMS_RULE_WRITE_DENY,
     "WRITE_DENY of the path when it lies in a write root (writes denied: stricter), dropped otherwise"},
    {1, "field oms_run_context.working_dir", 0, 0, 0, 0,
     "absent or NULL means the worktree; for a backend targeting 1.0 the host makes the current folder "
     "the worktree"},
    {2, "field oms_backend_api.rule_kinds", 0, 0, 0, 0,
     "absent: the rule kinds of the backend's target minor (1.0: kinds 1 to 10)"},
    {2, "field oms_backend_api.run_flags", 0, 0, 0, 0,
     "absent: the run flags of the backend's target minor (1.0: BEST_EFFORT, INTERACTIVE)"},
    {2, "field oms_backend_api.get_extension", 0, 0, 0, 0,
     "absent or NULL: no extension; a confining backend is then explained as unknown"},
    {2, "extension oms.explain-model/1", 0, 0, 0, 0,
     "absent: `oms explain` answers unknown under a confining backend (run `oms doctor --probe`)"},
    {2, "extension oms.verify-plan/1", 0, 0, 0, 0,
     "absent: `oms verify` refuses a confining backend before anything runs, and runs one that needs approval as "
     "unconfined (only with --yes)"},
    {3, "field oms_run_context.refusal_log", 0, 0, 0, 0,
     "absent or NULL: the backend reports no refusal of its own; the run's refusals are the egress proxy's"},
    {4, "rule kind NET_CONNECT_RUN_PORT (13)", OMS_RULE_NET_CONNECT_RUN_PORT, 0, 0, OMS_RULE_NET_CONNECT_LOOPBACK,
     "NET_CONNECT_LOOPBACK of the same port: reachable as any allowed loopback port (a warm container then holds it "
     "for its whole life, as before 1.4)"},
    {5, "rule kind NET_PUBLISH_LOOPBACK (14)", OMS_RULE_NET_PUBLISH_LOOPBACK, 0, 0, 0,
     "dropped, and the run says so in one line naming the port: nothing is published (the sandbox stays closed "
     "to the host)",
     "port {value} not published: the backend '{backend}' does not publish ports (NET_PUBLISH_LOOPBACK, plugin ABI "
     "1.5)"},
    {6, "field oms_report_sink.audience", 0, 0, 0, 0,
     "absent: a person reads the report (OMS_REPORT_FOR_PERSON); a backend then writes every line, as it did "
     "before 1.6"},
};

// The rule kinds minor `minor` defines: 1.0's and every one added up to it.
constexpr uint64_t rule_kinds_of_minor(unsigned minor) {
    uint64_t kinds = OMS_RULE_KINDS_1_0;
    for (const Addition& a : kAdditions)
        if (a.rule_kind != 0 && a.minor <= minor) kinds |= OMS_RULE_BIT(a.rule_kind);
    return kinds;
}

constexpr uint32_t run_flags_of_minor(unsigned minor) {
    uint32_t flags = OMS_RUN_FLAGS_1_0;
    for (const Addition& a : kAdditions)
        if (a.minor <= minor) flags |= a.run_flag;
    return flags;
}

constexpr uint32_t backend_flags_of_minor(unsigned minor) {
    uint32_t flags = OMS_BACKEND_FLAGS_1_0;
    for (const Addition& a : kAdditions)
        if (a.minor <= minor) flags |= a.backend_flag;
    return flags;
}

// The row that added rule kind `kind`, or nullptr for a 1.0 kind (or one
// this header does not know).
constexpr const Addition* addition_of_rule_kind(oms_rule_kind kind) {
    for (const Addition& a : kAdditions)
        if (a.rule_kind == kind && kind != 0) return &a;
    return nullptr;
}

// Whether a row added rule kind `kind`. A bool, not addition_of_rule_kind's
// pointer against nullptr: the sanitizers' -fno-delete-null-pointer-checks
// lets an object sit at address 0, so GCC cannot fold that comparison in a
// static_assert (the build with OMS_SANITIZE failed on it).
constexpr bool has_row_of_rule_kind(oms_rule_kind kind) {
    for (const Addition& a : kAdditions)
        if (a.rule_kind == kind && kind != 0) return true;
    return false;
}

constexpr bool has_kind(uint64_t kinds, oms_rule_kind kind) { return kind < 64 && (kinds & OMS_RULE_BIT(kind)) != 0; }

// "WRITE_DENY_NAME" for a kind this header defines, nullptr otherwise.
constexpr const char* rule_kind_constant(oms_rule_kind kind) {
    constexpr const char* names[] = {nullptr,          "READ_DENY_TREE",  "READ_ALLOW_TREE",      "READ_DENY",
                                     "READ_DENY_SUFFIX", "WRITE_ALLOW_TREE", "WRITE_DENY",          "ENV_PASS",
                                     "NET_CONNECT_LOOPBACK", "NET_LISTEN_LOOPBACK", "IPC_DENY_SERVICE",
                                     "WRITE_DENY_NAME", "WRITE_SCRATCH_TREE", "NET_CONNECT_RUN_PORT",
                                     "NET_PUBLISH_LOOPBACK"};
    return kind < sizeof names / sizeof names[0] ? names[kind] : nullptr;
}

// Every kind past 1.0's has its row (what it is lowered into), and a name.
constexpr bool every_later_kind_has_a_row() {
    for (oms_rule_kind kind = OMS_RULE_IPC_DENY_SERVICE + 1; kind <= OMS_RULE_KIND_LAST; ++kind)
        if (!has_row_of_rule_kind(kind) || !rule_kind_constant(kind)) return false;
    return true;
}
static_assert(every_later_kind_has_a_row(), "a rule kind added after ABI 1.0 needs its row in kAdditions");
static_assert(rule_kinds_of_minor(OMS_ABI_MINOR) == ((uint64_t{1} << (OMS_RULE_KIND_LAST + 1)) - 2),
              "the newest minor defines exactly the kinds 1 to OMS_RULE_KIND_LAST");

// The frozen ABI 1.0 size of each struct: the end of its last 1.0 field. A
// reader accepts any struct_size at least this, never demands its own sizeof
// (that would reject every plugin of the minor before).
#define OMS_ABI_END_OF(type, field) (offsetof(type, field) + sizeof(static_cast<type*>(nullptr)->field))
inline constexpr size_t kDescriptorSize_1_0 = OMS_ABI_END_OF(oms_plugin_descriptor, interface);
// end_task is optional, and may be absent from the struct too.
inline constexpr size_t kBackendApiSize_1_0 = OMS_ABI_END_OF(oms_backend_api, release);
inline constexpr size_t kPolicyApiSize_1_0 = OMS_ABI_END_OF(oms_policy_api, contribute);
inline constexpr size_t kConfigKeySize_1_0 = OMS_ABI_END_OF(oms_config_key, description);
inline constexpr size_t kRuleSize_1_0 = OMS_ABI_END_OF(oms_rule, origin);
inline constexpr size_t kRunContextSize_1_0 = OMS_ABI_END_OF(oms_run_context, flags);
inline constexpr size_t kPolicySize_1_0 = OMS_ABI_END_OF(oms_policy, env);
inline constexpr size_t kHostApiSize_1_0 = OMS_ABI_END_OF(oms_host_api, config_integers);
inline constexpr size_t kReportSinkSize_1_0 = OMS_ABI_END_OF(oms_report_sink, emit);
inline constexpr size_t kPolicySinkSize_1_0 = OMS_ABI_END_OF(oms_policy_sink, add);

// Whether a struct of `struct_size` bytes holds `field` (added after 1.0).
#define OMS_ABI_HAS_FIELD(struct_size, type, field) ((struct_size) >= OMS_ABI_END_OF(type, field))

}  // namespace oms::abi

#endif  // OMS_ABI_HISTORY_HPP
