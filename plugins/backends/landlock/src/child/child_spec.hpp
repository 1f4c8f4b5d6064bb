// What the forked child needs, flattened into plain C arrays before fork:
// after fork in a threaded process the child may not allocate, so it only
// reads this structure and makes system calls.
#pragma once
#include "kernel_features.hpp"
#include "sandbox_plan.hpp"
#include "seccomp_program.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace oms::landlock {

struct ChildPathRule {
    const char* path;
    uint64_t rights;
};

struct ChildSpec {
    // Owned storage the pointers below point into.
    std::vector<std::string> storage_argv, storage_env;
    std::vector<char*> argv, envp;
    std::vector<const char*> pin_in_place, read_only, hide_folders, hide_files;
    // Two per hide_folders / hide_files entry: the st_dev and st_ino the
    // keypair search saw there (0, 0: not a search match, covered by path).
    std::vector<unsigned long long> hide_folder_ids, hide_file_ids;
    std::vector<const char*> writable_mounts, private_temps, temp_keeps, temp_fresh, scratch_trees, scratch_read_only;
    // HOME's skeleton (home_skeleton_plan.hpp): null when HOME is left as it is.
    const char* home_skeleton = nullptr;
    std::vector<const char*> home_keeps;
    std::vector<const char*> home_link_folders, home_link_names, home_link_texts;  // Plan::home_links
    uint32_t home_mode = 0700;
    uint32_t home_owner[2] = {0, 0};
    // Room for one descriptor per writable mount or temp or HOME keep: the child
    // holds their clones for a moment and may not allocate.
    std::vector<int> mount_fd_storage;
    std::vector<char> keep_folder_storage;
    int* mount_fds = nullptr;
    char* keep_is_folder = nullptr;  // per temp or HOME keep: a folder (else a file)
    std::vector<ChildPathRule> path_rules;
    std::vector<uint16_t> connect_ports, bind_ports, relay_ports;
    // Plan::publish_ports: the launcher listens on the host's 127.0.0.1 for
    // each, and the init hands it sockets of the sandbox's network over
    // channel_fd to connect them (published_sockets.hpp).
    std::vector<uint16_t> publish_ports;
    // relay_listen[i]: the host had a listener on relay_ports[i] just before
    // the start, so the child listens at once; otherwise it only binds and
    // connects are refused until the relay sees one (empty: listen on all).
    std::vector<bool> relay_listen;

    const char* program = nullptr;
    const char* not_found = nullptr;  // Plan::not_found: said and exited with instead of the exec
    int not_found_status = 127;
    const char* worktree = nullptr;
    const char* working_dir_below = nullptr;  // relative to the worktree, entered without leaving it
    // The host's file the sandbox's resolv.conf covers, or null; the child
    // makes the sandbox's one (child_mask_sources.cpp).
    const char* resolv_conf_target = nullptr;
    int stdio[3] = {0, 1, 2};
    int error_fd = -1;     // CLOEXEC pipe: a failure report, or EOF at exec
    int channel_fd = -1;   // unix socket carrying the relay listeners, then published sockets, to the parent
    // CLOEXEC pipe: the command's exit code, written by the init once nothing
    // of the run but the init is left, before the init's own exit (which
    // takes longer: its memory, its mounts). EOF without it: read the init's.
    int end_fd = -1;
    const char* refusal_log = nullptr;  // Plan::refusal_log, opened by the launcher
    int report_fd = -1;    // that file, O_APPEND: the init's refusals (refused_connect_watch.hpp)
    bool watch_connects = true;  // Plan::watch_connects
    bool own_network = true;
    // TaskNetwork::join_pidfd: the init of a live run of the task whose
    // network this run enters (-1: a network of its own).
    int join_pidfd = -1;
    // TaskNetwork's lock, closed first thing in the child: a lock of an open
    // file description is held while any copy of the descriptor is open, so
    // the child's copy would keep the key locked until its exec.
    int task_lock_fd = -1;
    // Set in the joining helper's copy only (launcher.cpp): the user and
    // network namespaces are entered already, the id maps made.
    bool network_entered = false;
    // Say so on channel_fd (kNetworkEnteredTag) once in the run's network
    // with the resolver open, before the mounts: the run joins its task's
    // members then, and the next runs of the task look without waiting for
    // this one's exec.
    bool tell_network_entered = false;
    uint32_t resolver_address = 0x7f000001;  // TaskNetwork::resolver_address
    bool need_user_namespace = false;  // not root: a user namespace grants the mount rights
    // false: rung 3, no namespace at all (Plan::namespaces): no mounts, no
    // lo, the init a subreaper that kills what the command leaves.
    bool namespaces = true;
    // /dev a fresh read-only tmpfs holding only these device files of the
    // host's (Plan::fresh_dev_keeps), every other mount nodev; their clones
    // are taken before the root is made nodev, one slot each.
    bool fresh_dev = false;
    std::vector<const char*> fresh_dev_keeps;
    std::vector<int> dev_fd_storage;
    std::vector<char> dev_folder_storage;
    int* dev_fds = nullptr;
    char* dev_is_folder = nullptr;
    const SeccompProgram* extra_seccomp = nullptr;  // a second filter on top of `seccomp` (rung 3's)
    uint32_t uid = 0, gid = 0;
    KernelFeatures features;
    const SeccompProgram* seccomp = nullptr;
};

// Builds the spec for `plan`, masking rights to what the kernel knows.
ChildSpec make_child_spec(const Plan& plan, const KernelFeatures& features, const SeccompProgram& seccomp);

// The child's whole life: confine itself, then exec. Never returns; on any
// failure it writes {errno, step} to error_fd and exits 127.
[[noreturn]] void run_child(const ChildSpec& spec);

// The failure report the child writes.
struct ChildFailure {
    int32_t error_number;
    char step[500];
};

}  // namespace oms::landlock
