/* Offsets and sizes of the ABI 1.0 structs on LP64 targets (x86-64, arm64).
 * A change here is an ABI break: bump OMS_ABI_MAJOR, or append instead. */
#include <oms/sdk.h>

#include <stddef.h>

#if defined(__LP64__)
_Static_assert(sizeof(oms_str) == 16, "oms_str");
_Static_assert(sizeof(oms_strings) == 16, "oms_strings");
_Static_assert(sizeof(oms_error) == 16, "oms_error");
_Static_assert(sizeof(oms_config_key) == 32, "oms_config_key");
_Static_assert(offsetof(oms_host_api, host_data) == 8, "oms_host_api.host_data");
_Static_assert(offsetof(oms_host_api, config_integers) == 56, "oms_host_api.config_integers");
_Static_assert(offsetof(oms_run_context, home) == 16, "oms_run_context.home");
_Static_assert(offsetof(oms_run_context, flags) == 144, "oms_run_context.flags");
/* ABI 1.1 appends working_dir after flags (152: flags is padded to 8). */
_Static_assert(offsetof(oms_run_context, working_dir) == 152, "oms_run_context.working_dir");
/* ABI 1.3 appends refusal_log. */
_Static_assert(offsetof(oms_run_context, refusal_log) == 160, "oms_run_context.refusal_log");
_Static_assert(sizeof(oms_run_context) == 168, "oms_run_context");
_Static_assert(sizeof(oms_rule) == 48, "oms_rule");
_Static_assert(offsetof(oms_rule, origin) == 32, "oms_rule.origin");
_Static_assert(sizeof(oms_policy) == 40, "oms_policy");
_Static_assert(sizeof(oms_policy_sink) == 24, "oms_policy_sink");
_Static_assert(sizeof(oms_policy_api) == 16, "oms_policy_api");
/* ABI 1.6 appends audience after emit (32: padded to 8). */
_Static_assert(offsetof(oms_report_sink, audience) == 24, "oms_report_sink.audience");
_Static_assert(sizeof(oms_report_sink) == 32, "oms_report_sink");
_Static_assert(sizeof(oms_stdio) == 12, "oms_stdio"); /* frozen for all of 1.x: passed by value */
_Static_assert(offsetof(oms_backend_api, probe) == 24, "oms_backend_api.probe");
_Static_assert(offsetof(oms_backend_api, release) == 64, "oms_backend_api.release");
_Static_assert(offsetof(oms_backend_api, end_task) == 72, "oms_backend_api.end_task");
/* ABI 1.2 appends the capabilities after end_task. */
_Static_assert(offsetof(oms_backend_api, rule_kinds) == 80, "oms_backend_api.rule_kinds");
_Static_assert(offsetof(oms_backend_api, run_flags) == 88, "oms_backend_api.run_flags");
_Static_assert(offsetof(oms_backend_api, get_extension) == 96, "oms_backend_api.get_extension");
_Static_assert(sizeof(oms_backend_api) == 104, "oms_backend_api");
_Static_assert(offsetof(oms_plugin_descriptor, id) == 8, "oms_plugin_descriptor.id");
_Static_assert(offsetof(oms_plugin_descriptor, create) == 56, "oms_plugin_descriptor.create");
_Static_assert(offsetof(oms_plugin_descriptor, interface) == 72, "oms_plugin_descriptor.interface");
_Static_assert(sizeof(oms_plugin_descriptor) == 80, "oms_plugin_descriptor");
#endif

/* The frozen sets of 1.0 (any target). */
_Static_assert(OMS_RULE_KINDS_1_0 == 0x7fe, "rule kinds 1 to 10");
_Static_assert(OMS_RUN_FLAGS_1_0 == 3, "BEST_EFFORT, INTERACTIVE");
_Static_assert(OMS_BACKEND_FLAGS_1_0 == 7, "NEEDS_APPROVAL, CONFINES, SHARES_PROCESS_GROUP");
_Static_assert(OMS_CONFIG_FLAGS_1_0 == 1, "NARROWS");

/* Every struct starts with its size, so a reader can tell what it was given. */
_Static_assert(offsetof(oms_plugin_descriptor, struct_size) == 0, "descriptor starts with its size");
_Static_assert(offsetof(oms_backend_api, struct_size) == 0, "backend api starts with its size");
_Static_assert(offsetof(oms_policy_api, struct_size) == 0, "policy api starts with its size");
_Static_assert(offsetof(oms_host_api, struct_size) == 0, "host api starts with its size");
_Static_assert(offsetof(oms_run_context, struct_size) == 0, "run context starts with its size");
_Static_assert(offsetof(oms_rule, struct_size) == 0, "rule starts with its size");

/* Linked into the test so the object is not optimised away unseen. */
int oms_abi_layout_checked(void) { return OMS_ABI_MAJOR * 100 + OMS_ABI_MINOR; }
