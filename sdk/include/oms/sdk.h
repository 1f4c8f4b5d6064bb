/*
 * oms/sdk.h: the plugin ABI of oms, the only stable contract between the
 * `oms` host and the shared-library plugins it loads.
 *
 * Rules that hold for every declaration below:
 *
 *  VERSIONING  The ABI has a major and a minor number. The host loads a plugin
 *              when the majors are equal and the minor the plugin TARGETS (its
 *              descriptor's abi_minor) is not newer than the host's. A minor
 *              bump only appends fields at the END of structs and appends
 *              constants; a major bump may change anything. What each minor
 *              added, and what a reader of an older minor gets instead, is
 *              the table in oms/abi_history.hpp (docs/plugin-abi.md).
 *  SIZES       Every struct that crosses the boundary starts with `struct_size`,
 *              set by whoever fills it to sizeof() as that side compiled it. A
 *              reader never touches a field that lies beyond `struct_size`.
 *              Arrays of structs (oms_policy.rules, config_keys) are stepped
 *              through with the first element's `struct_size` as the stride,
 *              not the reader's sizeof, so a newer writer's longer elements
 *              stay readable. A reader accepts any struct_size at least the
 *              FROZEN 1.0 size of that struct (the end of its last 1.0 field),
 *              never its own sizeof: a struct below that is an error.
 *  FLAGS       Every flag word says which bits each minor defines (the
 *              OMS_*_FLAGS_1_0 sets below, grown in oms/abi_history.hpp). A
 *              plugin sets only bits its target minor defines, or the host
 *              rejects it; the host sets only bits the plugin declares it
 *              understands (run flags: oms_backend_api.run_flags).
 *  CAPABILITY  A backend declares the rule kinds it enforces
 *              (oms_backend_api.rule_kinds). A rule of any other kind never
 *              reaches it: the host rewrites it into declared kinds, never
 *              weaker, or refuses the run naming the plugin and the kind.
 *  OWNERSHIP   Every pointer handed to a call is BORROWED for that call only,
 *              unless its comment says otherwise. Nothing allocated on one side
 *              is freed on the other: results travel back through sinks
 *              (callbacks that copy what they are given).
 *  ERRORS      Functions return an oms_status. On failure they may write a
 *              NUL-terminated, human-readable reason into the caller-owned
 *              oms_error buffer (truncated to fit). No exception, longjmp or
 *              C++ type ever crosses the boundary.
 *  THREADING   The host calls a plugin from one thread at a time, except where a
 *              function says "any thread". Host services (oms_host_api) may be
 *              called from any thread.
 *  STRINGS     Text is UTF-8 (paths are bytes, passed through unchanged).
 *              `const char*` is NUL-terminated; oms_str is {data, size} and is
 *              NOT NUL-terminated unless stated.
 */
#ifndef OMS_SDK_H
#define OMS_SDK_H

#include <stddef.h> /* size_t */
#include <stdint.h> /* fixed-width integers: the ABI never uses int/long */

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------- versions */

/* Major ABI version: a plugin built for another major is rejected. */
#define OMS_ABI_MAJOR 1
/* Minor ABI version of this header: a plugin targeting a newer minor than the
 * host is rejected. A plugin compiled with this header may target an older
 * minor (OMS_TARGET_ABI_MINOR in oms/sdk.hpp) and then loads on that host. */
#define OMS_ABI_MINOR 6

/* The one symbol every plugin exports (see oms_plugin_entry_fn at the end). */
#define OMS_PLUGIN_ENTRY_SYMBOL "oms_plugin_entry"

/* Interface ids, versioned strings compared byte for byte by the host. */
#define OMS_KIND_BACKEND "oms.backend/1" /* descriptor.interface is oms_backend_api */
#define OMS_KIND_POLICY "oms.policy/1"   /* descriptor.interface is oms_policy_api */

/* ------------------------------------------------------------------ basics */

/* Result of every fallible call. Values are fixed forever; new ones only appended. */
typedef int32_t oms_status;
#define OMS_OK 0              /* success */
#define OMS_ERR_FAILED 1      /* generic failure; the reason is in oms_error */
#define OMS_ERR_INVALID 2     /* bad argument or configuration */
#define OMS_ERR_UNAVAILABLE 3 /* the mechanism cannot run on this machine */
#define OMS_ERR_UNSUPPORTED 4 /* the request cannot be expressed exactly */
#define OMS_ERR_INTERNAL 5    /* a bug or an exception caught inside the plugin */

/* A borrowed byte string that need not be NUL-terminated. */
typedef struct oms_str {
    const char* data; /* first byte; may be NULL only when size is 0 */
    size_t size;      /* number of bytes */
} oms_str;

/* A borrowed list of NUL-terminated strings. */
typedef struct oms_strings {
    const char* const* items; /* `count` pointers, each NUL-terminated; NULL when count is 0 */
    size_t count;             /* number of items */
} oms_strings;

/* A caller-owned buffer that receives a failure reason. */
typedef struct oms_error {
    char* buffer;    /* owned by the caller; the callee writes a NUL-terminated text */
    size_t capacity; /* bytes available in buffer, including the NUL; 0 means "no room" */
} oms_error;

/* Log levels understood by oms_host_api.log (mapped onto the host's logger). */
typedef int32_t oms_log_level;
#define OMS_LOG_DEBUG 0 /* detail for developers */
#define OMS_LOG_INFO 1  /* normal progress */
#define OMS_LOG_WARN 2  /* something the user should know; the run goes on */
#define OMS_LOG_ERROR 3 /* something failed */

/* ------------------------------------------------------------ configuration */

/* Type of a configuration key a plugin declares. */
typedef uint32_t oms_config_type;
#define OMS_CONFIG_STRING 1        /* TOML string */
#define OMS_CONFIG_INTEGER 2       /* TOML integer (64-bit) */
#define OMS_CONFIG_BOOLEAN 3       /* TOML boolean */
#define OMS_CONFIG_STRING_ARRAY 4  /* TOML array of strings */
#define OMS_CONFIG_INTEGER_ARRAY 5 /* TOML array of integers */

/* Flags of a configuration key. */
#define OMS_CONFIG_NARROWS 1u /* the key only ever narrows the policy, so a worktree's own
                                 .oms/config.toml may set it; arrays are then appended to
                                 the user's values. Keys without it are refused there. */
/* The config key flags ABI 1.0 defines; the host rejects a key with another bit. */
#define OMS_CONFIG_FLAGS_1_0 OMS_CONFIG_NARROWS

/* One key of the plugin's table `[plugin.<id>]`. The host validates the
 * user's files against this list before any plugin is created: an unknown
 * key or a wrong type stops oms with the file, line and key named. */
typedef struct oms_config_key {
    uint32_t struct_size;        /* sizeof(oms_config_key) */
    const char* name;            /* key name inside the plugin's table; static storage */
    oms_config_type type;        /* one of OMS_CONFIG_* types */
    uint32_t flags;              /* OMS_CONFIG_NARROWS or 0 */
    const char* description;     /* one line for `oms plugins --keys` and the docs; static */
} oms_config_key;

/* ------------------------------------------------------------ host services */

/* Services the host lends to a plugin instance. The table lives at least as
 * long as the instance created with it. Any thread may call these. */
typedef struct oms_host_api {
    uint32_t struct_size; /* sizeof(oms_host_api) as the host compiled it */
    uint16_t abi_major;   /* host's OMS_ABI_MAJOR */
    uint16_t abi_minor;   /* host's OMS_ABI_MINOR */
    void* host_data;      /* opaque; pass back as the first argument of every service */

    /* Write one log line attributed to the calling plugin. */
    void (*log)(void* host_data, oms_log_level level, const char* message);

    /* Look up a key of the plugin's own config table. Each returns OMS_OK and
     * sets *out when the key is present with that type, OMS_ERR_INVALID
     * otherwise (absent keys leave *out untouched, so preset your default).
     * Returned strings belong to the host and live as long as this table. */
    oms_status (*config_string)(void* host_data, const char* key, const char** out);
    oms_status (*config_integer)(void* host_data, const char* key, int64_t* out);
    oms_status (*config_boolean)(void* host_data, const char* key, int32_t* out);
    /* Arrays: *out receives a host-owned list valid as long as this table. */
    oms_status (*config_strings)(void* host_data, const char* key, oms_strings* out);
    oms_status (*config_integers)(void* host_data, const char* key, const int64_t** out,
                                  size_t* count);
} oms_host_api;

/* ----------------------------------------------------------- run context */

/* Flags of a run (oms_run_context.flags). */
#define OMS_RUN_BEST_EFFORT 1u /* the user accepts a backend that cannot enforce every rule;
                                  without it such a backend must refuse to launch */
#define OMS_RUN_INTERACTIVE 2u /* stdin is a terminal */
/* The run flags ABI 1.0 defines. The host sets only bits the backend declares
 * it understands (oms_backend_api.run_flags; this set when absent). */
#define OMS_RUN_FLAGS_1_0 (OMS_RUN_BEST_EFFORT | OMS_RUN_INTERACTIVE)

/* The name every run's folder starts with: private_home and temp_dir are the
 * folders home/ and tmp/ of one folder <base>/OMS_RUN_DIR_PREFIX<6 characters>,
 * and every run of a user has its folder in the same <base>: a folder of
 * the user's own that holds nothing else (/tmp/oms-runs-UID, whatever the
 * caller's TMPDIR; oms 0.1.0 used TMPDIR itself). A backend whose commands
 * could see <base> (it lies in the system temp folder a command may write)
 * keeps each command out of every other run's folder, those that start
 * later too: by this name, or by hiding <base> whole but for this run's
 * home/ and tmp/, and the other users' bases beside it (oms/run_folder.hpp).
 * Stable across 1.x. */
#define OMS_RUN_DIR_PREFIX "oms-run-"

/* Everything known about one command before policy assembly. Built by the
 * host, borrowed by plugins for the duration of each call. All paths are
 * absolute; worktree and home are canonical (symlinks resolved). */
typedef struct oms_run_context {
    uint32_t struct_size;      /* sizeof(oms_run_context) */
    const char* platform;      /* "linux" or "macos" (tests may inject another) */
    const char* home;          /* the user's real HOME */
    const char* worktree;      /* the task's worktree: the command reads and writes below it */
    const char* private_home;  /* per-run HOME (0700), created before, removed after */
    const char* temp_dir;      /* per-run TMPDIR, next to private_home in the run's folder */
    const char* state_dir;     /* oms's state folder ($XDG_STATE_HOME/oms) */
    oms_strings parent_env;    /* the caller's environment, "NAME=value" entries */
    oms_strings read_only;     /* extra read-only mounts (--ro, config) */
    oms_strings read_write;    /* extra read-write mounts (--rw, config) */
    oms_strings pinned;        /* pinned verifier files, never writable */
    const char* surfpool;      /* the trusted Surfpool binary, or NULL */
    oms_strings argv;          /* the command; argv.items[0] is the program */
    uint32_t flags;            /* OMS_RUN_* */
    /* Added in ABI 1.1 (read it only when struct_size covers it). */
    const char* working_dir;   /* the command's working folder: the worktree or a folder
                                  below it (canonical); NULL/absent from a 1.0 host: use
                                  worktree. A backend starts the command here. */
    /* Added in ABI 1.3. */
    const char* refusal_log;   /* a per-run file (mode 0600, in the run's folder) where the
                                  backend appends what it sees refused (a name lookup, a
                                  loopback connection), one line each (oms/refusal_log.hpp);
                                  oms adds them to the run's refusals. NULL/absent: none. */
} oms_run_context;

/* ----------------------------------------------------------------- policy */

/* What one rule says. A policy is a list of rules; every backend renders the
 * same list, none derives its own. Values are fixed forever. */
typedef uint32_t oms_rule_kind;
#define OMS_RULE_READ_DENY_TREE 1  /* path: deny reads below this folder (HOME) */
#define OMS_RULE_READ_ALLOW_TREE 2 /* path: reopen reads below it (worktree, toolchain) */
#define OMS_RULE_READ_DENY 3       /* path: deny reads of this file or folder again */
#define OMS_RULE_READ_DENY_SUFFIX 4 /* text: deny reads of any path ending with it
                                       ("-keypair.json", "/id.json") */
#define OMS_RULE_WRITE_ALLOW_TREE 5 /* path: allow writes below it */
#define OMS_RULE_WRITE_DENY 6       /* path: deny writes to it again (.git, pinned files) */
#define OMS_RULE_ENV_PASS 7         /* text: this variable name may reach the command */
#define OMS_RULE_NET_CONNECT_LOOPBACK 8 /* number: TCP port on loopback the command may reach */
#define OMS_RULE_NET_LISTEN_LOOPBACK 9  /* path: only this trusted binary may listen on
                                           loopback (number: the port, 0 for any allowed) */
#define OMS_RULE_IPC_DENY_SERVICE 10    /* text: a named IPC service to deny (macOS mach
                                           global-name, e.g. com.apple.securityd) */
/* Added in ABI 1.1. A backend built for 1.0 does not know these kinds; the
 * host rewrites them into 1.0 kinds (never weaker) before such a backend
 * sees the policy. */
#define OMS_RULE_WRITE_DENY_NAME 11     /* text: a file or folder name (".git"): every
                                           entry of that name found at run start below a
                                           write root is write-denied like WRITE_DENY */
#define OMS_RULE_WRITE_SCRATCH_TREE 12  /* path: writes below it are allowed but must
                                           never reach the host: a per-run layer thrown
                                           away when the run ends; a backend that has no
                                           such layer denies the writes (stricter) */
/* Added in ABI 1.4. A backend that does not declare it gets it as a
 * NET_CONNECT_LOOPBACK rule of the same port (as before 1.4: never weaker). */
#define OMS_RULE_NET_CONNECT_RUN_PORT 13 /* number: a loopback TCP port that belongs to this
                                           run alone (oms's egress proxy): it listens only
                                           while the run lives, and two runs alive at once
                                           never share one. Reach it as NET_CONNECT_LOOPBACK;
                                           a backend that shares one sandbox among runs
                                           (a warm container) opens it for this run's
                                           command only, not for the shared sandbox */
/* Added in ABI 1.5. A backend that does not declare it never gets it: the
 * host drops the rule and says so in one line (nothing is published: the
 * sandbox is then closed to the host, never more open). */
#define OMS_RULE_NET_PUBLISH_LOOPBACK 14 /* number: a TCP port of the command's own
                                            loopback that processes of the host reach
                                            at the host's 127.0.0.1:PORT while the run
                                            lives (a dev server the user's browser
                                            opens); the backend listens there for the
                                            run and refuses the run when the host's
                                            port is taken. Never also a port the
                                            policy connects to (NET_CONNECT_*): the
                                            host refuses that policy */
/* The highest rule kind this header defines. */
#define OMS_RULE_KIND_LAST OMS_RULE_NET_PUBLISH_LOOPBACK

/* A rule kind as a bit of oms_backend_api.rule_kinds (bit 0 is never set). */
#define OMS_RULE_BIT(kind) ((uint64_t)1 << (kind))
/* The kinds ABI 1.0 defines (1 to 10): what a backend that predates the
 * rule_kinds declaration and targets 1.0 gets. Later sets: abi_history.hpp. */
#define OMS_RULE_KINDS_1_0 (((uint64_t)1 << 11) - 2)

/* One rule. `value` is a path, a text or empty, per kind. */
typedef struct oms_rule {
    uint32_t struct_size; /* sizeof(oms_rule) */
    oms_rule_kind kind;   /* OMS_RULE_* */
    oms_str value;        /* path or text; borrowed */
    int64_t number;       /* port, or 0 */
    oms_str origin;       /* why: the plugin and reason, e.g. "toolchain-roots: PATH entry" */
} oms_rule;

/* The assembled policy handed to a backend: rules in the order they were
 * contributed (policy plugins run in a fixed, documented order). */
typedef struct oms_policy {
    uint32_t struct_size;  /* sizeof(oms_policy) */
    const oms_rule* rules; /* rule_count rules; borrowed for the call */
    size_t rule_count;     /* number of rules */
    oms_strings env;       /* the command's final environment, "NAME=value" */
} oms_policy;

/* Where a policy plugin puts its rules. The host copies each rule. */
typedef struct oms_policy_sink {
    uint32_t struct_size; /* sizeof(oms_policy_sink) */
    void* host_data;      /* pass back as the first argument */
    /* Add one rule. Returns OMS_ERR_INVALID for an unknown kind or a relative path. */
    oms_status (*add)(void* host_data, const oms_rule* rule);
} oms_policy_sink;

/* The interface of a plugin whose kind is OMS_KIND_POLICY. */
typedef struct oms_policy_api {
    uint32_t struct_size; /* sizeof(oms_policy_api) */
    /* Contribute this plugin's rules for one run. Must not touch the
     * filesystem beyond reading it (stat, readlink, listing). */
    oms_status (*contribute)(void* instance, const oms_run_context* context,
                             const oms_policy_sink* sink, oms_error* error);
} oms_policy_api;

/* ---------------------------------------------------------------- reports */

/* What a line of a backend report is. */
typedef uint32_t oms_report_kind;
#define OMS_REPORT_SUMMARY 1  /* the one line doctor prints for the active confinement,
                                 e.g. "host (no sandbox; unrestricted network)" */
#define OMS_REPORT_SETTINGS 2 /* the one line the settings view shows */
#define OMS_REPORT_DETAIL 3   /* "name: value" facts; the host reads "guarantees: a, b" (plugin-abi.md) */
#define OMS_REPORT_MISSING 4  /* a guarantee this machine cannot give (one per line) */
#define OMS_REPORT_WARN_ONCE 5 /* a warning the host prints once per state folder */
#define OMS_REPORT_TEXT 6     /* rendered output (profile, argv, ruleset) */

/* Who reads a report (oms_report_sink.audience). */
typedef uint32_t oms_report_audience;
#define OMS_REPORT_FOR_PERSON 0 /* a person reads every line (doctor, plugins);
                                   also what an absent audience field means */
#define OMS_REPORT_FOR_HOST 1   /* the host alone reads it, to choose a backend and start a
                                   command (run, verify) or answer for one (explain, settings):
                                   it reads the status, SUMMARY, SETTINGS, the "guarantees:"
                                   DETAIL line, MISSING and WARN_ONCE lines and drops every other
                                   DETAIL line unread, so a backend may leave out the facts that
                                   take time to find and that only a person reads */

/* Where a plugin writes report lines; the host copies each one. */
typedef struct oms_report_sink {
    uint32_t struct_size; /* sizeof(oms_report_sink) */
    void* host_data;      /* pass back as the first argument */
    void (*emit)(void* host_data, oms_report_kind kind, oms_str text);
    /* Added in ABI 1.6: OMS_REPORT_FOR_*. Absent (struct_size too small):
     * OMS_REPORT_FOR_PERSON. */
    oms_report_audience audience;
} oms_report_sink;

/* ---------------------------------------------------------------- backend */

/* Backend flags (oms_backend_api.flags). */
#define OMS_BACKEND_NEEDS_APPROVAL 1u /* every command needs the user's approval (no
                                         confinement: host-null) */
#define OMS_BACKEND_CONFINES 2u       /* the backend enforces the policy with the OS */
#define OMS_BACKEND_SHARES_PROCESS_GROUP 4u /* the command runs in oms's process group, so a
                                               signal the terminal sends (Ctrl-C) reaches it
                                               directly; the host then forwards only signals
                                               other processes send to oms */
/* The backend flags ABI 1.0 defines; the host rejects a backend with another
 * bit its target minor does not define. */
#define OMS_BACKEND_FLAGS_1_0 \
    (OMS_BACKEND_NEEDS_APPROVAL | OMS_BACKEND_CONFINES | OMS_BACKEND_SHARES_PROCESS_GROUP)

/* Launch I/O: the command inherits these descriptors as its 0, 1, 2.
 * FROZEN: spawn takes it by value, so it has no struct_size and can never
 * grow within major 1 (a longer one would change spawn's calling
 * convention). Anything new about the launch travels in a field appended to
 * oms_run_context instead. */
typedef struct oms_stdio {
    int32_t in;  /* descriptor for the command's stdin */
    int32_t out; /* descriptor for the command's stdout */
    int32_t err; /* descriptor for the command's stderr */
} oms_stdio;

/* The interface of a plugin whose kind is OMS_KIND_BACKEND. Lifecycle of one
 * run: render (optional, for `oms policy`), then spawn, then any number of
 * signal calls, then wait once, then release. */
typedef struct oms_backend_api {
    uint32_t struct_size; /* sizeof(oms_backend_api) */
    uint32_t flags;       /* OMS_BACKEND_* */
    /* Rank for automatic choice: the usable backend with the highest strength
     * wins. host-null is 0, a kernel sandbox 100, a container 50. oms
     * remembers it with the file's identity and ranks an unloaded backend by
     * it: it must not change while the plugin file does not. */
    uint32_t strength;
    /* Platforms it serves, comma-separated ("linux", "macos", "linux,macos").
     * Remembered like strength, under the same rule. */
    const char* platforms;

    /* Can this backend run here? Emits SUMMARY, SETTINGS, DETAIL, MISSING
     * and WARN_ONCE lines. Returns OMS_OK when usable, OMS_ERR_UNAVAILABLE with
     * the reason otherwise. Must be quick (doctor calls it for every backend). */
    oms_status (*probe)(void* instance, const oms_report_sink* report, oms_error* error);

    /* Render the policy the way this backend would enforce it (TEXT lines),
     * without running anything. */
    oms_status (*render)(void* instance, const oms_run_context* context,
                         const oms_policy* policy, const oms_report_sink* report,
                         oms_error* error);

    /* Start the command under confinement. The child's signal mask and
     * dispositions must be the defaults; its environment is exactly
     * policy->env; its working directory is context->worktree. On success
     * *out_run is an opaque handle for signal/wait. A backend that cannot
     * enforce the whole policy fails with OMS_ERR_UNSUPPORTED unless
     * context->flags has OMS_RUN_BEST_EFFORT. */
    oms_status (*spawn)(void* instance, const oms_run_context* context,
                        const oms_policy* policy, oms_stdio stdio, void** out_run,
                        oms_error* error);

    /* Deliver a signal (SIGINT, SIGTERM, SIGHUP) to the running command. Any
     * thread, concurrently with wait. */
    oms_status (*signal)(void* instance, void* run, int32_t signal_number);

    /* Wait for the command to end. *exit_code is the command's exit status,
     * or 128+N when signal N ended it. Called once per run. */
    oms_status (*wait)(void* instance, void* run, int32_t* exit_code, oms_error* error);

    /* Release the run handle (after wait, or instead of it when the host gives
     * up); no signal call follows. Separate from wait so that a signal racing
     * the command's end never meets a freed handle. */
    void (*release)(void* instance, void* run);

    /* Optional (may be NULL): the task that owns this worktree has ended; drop
     * whatever the backend keeps per task (warm containers). */
    oms_status (*end_task)(void* instance, const oms_run_context* context,
                           const oms_report_sink* report, oms_error* error);

    /* Added in ABI 1.2 (the host reads them only when struct_size covers them). */
    /* The rule kinds this backend handles, OMS_RULE_BIT(kind) each: a
     * confining backend enforces every one (or fails spawn with
     * OMS_ERR_UNSUPPORTED); a backend that needs approval shows them. The
     * host never hands it a rule of another kind: it rewrites the rule into
     * declared kinds (never weaker) or refuses the run. Only kinds the
     * target minor defines may be set. Absent: the kinds of abi_minor
     * (1.0: OMS_RULE_KINDS_1_0). */
    uint64_t rule_kinds;
    /* The OMS_RUN_* bits it understands; the host sets no other bit in
     * oms_run_context.flags. Absent: the run flags of abi_minor. */
    uint32_t run_flags;
    /* Optional features, each named by a versioned id (OMS_EXTENSION_*):
     * returns the feature's struct (static storage, starting with its
     * struct_size) or NULL when the backend has no such feature; the
     * pointer itself may be NULL (no features). The host asks by id and
     * never keys behaviour on a backend's plugin id. */
    const void* (*get_extension)(void* instance, const char* id);
} oms_backend_api;

/* ------------------------------------------------------------- extensions */

/* "oms.explain-model/1": which documented model of docs/rule-semantics.md
 * the backend's decisions follow, so that `oms explain` can predict them. A
 * confining backend without it is explained as "unknown" (run `oms doctor
 * --probe`), never as unconfined. Added in ABI 1.2. */
#define OMS_EXTENSION_EXPLAIN_MODEL "oms.explain-model/1"
typedef struct oms_explain_model {
    uint32_t struct_size; /* sizeof(oms_explain_model) */
    uint32_t model;       /* OMS_EXPLAIN_MODEL_* */
} oms_explain_model;
#define OMS_EXPLAIN_MODEL_LANDLOCK 1  /* Landlock rules and mount covers, HOME a skeleton (landlock column) */
#define OMS_EXPLAIN_MODEL_SEATBELT 2  /* an SBPL profile: path filters, nothing covered (seatbelt column) */
#define OMS_EXPLAIN_MODEL_CONTAINER 3 /* a container: only its mounts exist (docker column) */

/* "oms.verify-plan/1": how `oms verify` runs its pinned check under this
 * backend: the network the check and its Surfnet get, the program that
 * starts both inside the sandbox, and what the host prepares for it. The
 * host reads no backend's private config to decide this: the backend says
 * it. A backend without it (or with a struct shorter than this one, or a
 * network or flag this host does not know): one that declares
 * OMS_BACKEND_NEEDS_APPROVAL is run as OMS_VERIFY_NETWORK_UNCONFINED (only
 * with --yes, after the warning); any other is refused before anything runs
 * ("declares no verify plan"), also by `--plan`. Added in ABI 1.2. */
#define OMS_EXTENSION_VERIFY_PLAN "oms.verify-plan/1"
typedef struct oms_verify_plan {
    uint32_t struct_size;     /* sizeof(oms_verify_plan) */
    uint32_t network;         /* OMS_VERIFY_NETWORK_*: what the check can reach */
    const char* network_text; /* one line for the plan and `oms doctor` saying what the check can
                                 reach and why; every "{port}" becomes the Surfnet's port; static */
    oms_strings launcher;     /* the program (and its first arguments) that starts the Surfnet
                                 and then the check, by its path INSIDE the sandbox; the host
                                 appends PORT WAIT_MS COUNT SURFNET_ARGV(COUNT) -- CHECK... and
                                 runs it as the command (docs/plugin-abi.md, "The verify
                                 launcher"). count 0: the host's own, `oms __verify-launch`,
                                 whose executable the host makes readable in the policy. Static */
    uint32_t flags;           /* OMS_VERIFY_* */
    /* Optional (may be NULL): the instance's configuration can break the
     * promise of `network` (a container network setting): return OMS_OK when
     * it holds, else OMS_ERR_UNSUPPORTED with one line naming the setting.
     * The host then prints "oms verify: <line>. Nothing ran." and runs
     * nothing (exit 77). Called before the snapshot is made. */
    oms_status (*check)(void* instance, oms_error* error);
} oms_verify_plan;
/* Networks (oms_verify_plan.network). Values are fixed forever. */
#define OMS_VERIFY_NETWORK_PRIVATE_LOOPBACK 1 /* the check and its Surfnet share a loopback of
                                                 their own; no host port is reachable. The
                                                 host drops every loopback rule. */
#define OMS_VERIFY_NETWORK_HOST_PORT 2        /* the Surfnet listens on the host's loopback; the
                                                 host replaces the loopback rules with one
                                                 NET_CONNECT_LOOPBACK and one NET_LISTEN_LOOPBACK
                                                 of the Surfnet's port */
#define OMS_VERIFY_NETWORK_UNCONFINED 3       /* no confinement: the check reaches every host
                                                 port; the host runs it only with --yes */
/* Flags (oms_verify_plan.flags). */
#define OMS_VERIFY_OUTPUT_TO_WORKTREE_OWNER 1u /* the check runs as the worktree's owner even when
                                                  oms runs as root: the host hands the results
                                                  folder to that owner before the start */
/* The verify-plan flags oms.verify-plan/1 defines; the host refuses a plan
 * with another bit (a promise it would not keep). */
#define OMS_VERIFY_FLAGS_1 OMS_VERIFY_OUTPUT_TO_WORKTREE_OWNER

/* --------------------------------------------------------------- descriptor */

/* What the entry symbol hands to the host. Static storage: it must stay valid
 * while the library is loaded. */
typedef struct oms_plugin_descriptor {
    uint32_t struct_size;  /* sizeof(oms_plugin_descriptor); the host rejects a smaller one
                              than the ABI version it declares, or one larger than 64 KiB */
    uint16_t abi_major;    /* OMS_ABI_MAJOR the plugin was built against */
    uint16_t abi_minor;    /* the minor the plugin TARGETS: it needs nothing a later minor
                              added, and gets that minor's semantics (rule kinds, flags)
                              for whatever it does not declare. May be older than the
                              header it was compiled with (struct_size says what it has). */
    const char* id;        /* unique short name, [a-z0-9-]+, e.g. "landlock" */
    const char* kind;      /* OMS_KIND_BACKEND or OMS_KIND_POLICY */
    const char* version;   /* the plugin's own version, e.g. "1.2.0" */
    const char* summary;   /* one line saying what it does */
    const oms_config_key* config_keys; /* keys of [plugin.<id>]; static storage */
    size_t config_key_count;           /* number of config_keys */

    /* Make an instance. `host` lives as long as the instance. On failure the
     * plugin is reported as rejected with the reason and never used. */
    oms_status (*create)(const oms_host_api* host, void** out_instance, oms_error* error);
    /* Destroy an instance made by create; the host unloads the library only
     * after every instance is destroyed. */
    void (*destroy)(void* instance);
    /* The kind's interface (oms_backend_api or oms_policy_api); static storage. */
    const void* interface;
} oms_plugin_descriptor;

/* The exported entry: the host passes its own ABI version; the plugin sets
 * *out to its descriptor and returns OMS_OK, or fails with a reason. Called
 * once, right after loading. */
typedef oms_status (*oms_plugin_entry_fn)(uint16_t host_abi_major, uint16_t host_abi_minor,
                                          const oms_plugin_descriptor** out,
                                          oms_error* error);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* OMS_SDK_H */
