// The steps of the child between fork and exec, one file each. They run in a
// forked copy of a threaded process: no allocation, no locks, no exceptions.
// Each returns normally or ends the child through child_fail().
#pragma once
#include "child_spec.hpp"

namespace oms::landlock {

// Reports `step` (+ optional path) and errno to the parent, then _exit(127).
[[noreturn]] void child_fail(const ChildSpec& spec, const char* step, const char* path = nullptr,
                             int error_number = -1);

// Writes `value` in decimal and a NUL into `out` (room for 11 bytes);
// returns the number of digits. No formatting functions in the child.
int format_decimal(uint32_t value, char* out);

void enter_namespaces(const ChildSpec& spec);      // user maps (non-root), mount, network
void apply_mounts(const ChildSpec& spec);          // all the steps below, in order, then pins, binds, masks
void make_root_read_only(const ChildSpec& spec);   // everything but the writable mounts: EROFS
void set_up_private_temps(const ChildSpec& spec);  // fresh /tmp, /var/tmp with the kept paths bound back
void set_up_home_skeleton(const ChildSpec& spec); // HOME: read-only tmpfs with the granted paths bound back
void mount_fresh_proc(const ChildSpec& spec);      // /proc of the new PID namespace
void copy_granted_devices(const ChildSpec& spec);  // clones of the granted device files, before nodev
void mount_fresh_dev(const ChildSpec& spec);       // /dev with only those device files
void mount_scratch_trees(const ChildSpec& spec);   // overlays thrown away with the run (else read-only)
void bring_loopback_up(const ChildSpec& spec);     // lo up, in a network of the run's own or its task's
void setup_loopback(const ChildSpec& spec);        // relay listeners handed to the parent
// The [::1] sockets setup_loopback holds on the relayed ports, which the
// init keeps for the run: their count, and `fds` set to them.
int relayed_ipv6_holds(const int** fds);
void open_resolver(const ChildSpec& spec);  // the run's DNS responder, once lo is up
// The step a joined run fails at when its resolver's address is taken on the
// task's loopback: the launcher then starts it with a loopback of its own.
inline constexpr char kResolverStep[] =
    "answer name lookups on its own address of the task's loopback (something there holds it)";
// The step a joining run fails at when the member whose network it enters
// ended since the look: the launcher looks again (task_network.hpp).
inline constexpr char kJoinStep[] = "enter the task's network (the run it joined has ended)";
// Rung 3 (no PID namespace): every process the command leaves is reparented
// to the init, which ends them all with the command (end_leftovers).
void become_subreaper(const ChildSpec& spec);
void end_leftovers();
// The same in the run's own PID namespace, whose pid 1 the caller is: every
// other process there is killed and reaped. False (nothing done) when the
// caller is not pid 1, where kill(-1) would reach outside the run.
bool end_namespace();
// Starts the command as pid 2 of the PID namespace (it runs `confine_and_exec`)
// and stays as its init: forwards signals, reaps orphans, and exits with the
// command's status, which ends every process left in the namespace.
[[noreturn]] void run_as_init(const ChildSpec& spec);
[[noreturn]] void confine_and_exec(const ChildSpec& spec);
// Binds `source` onto `target` (opened with no link in its path).
void bind_fd(const ChildSpec& spec, int source, const char* target, bool read_only);
void bind_in_place(const ChildSpec& spec, const char* path, bool read_only);
// The folder or file at `path` (absolute, canonical), made where missing;
// only in a file system the child has just mounted, nobody else writes there.
int make_mount_point(const ChildSpec& spec, const char* path, bool folder);
// Clones each path (recursively, with the flags it has now) into `fds`,
// recording in `folder` whether it is a folder.
void clone_keeps(const ChildSpec& spec, const std::vector<const char*>& paths, int* fds, char* folder);
// Attaches each clone again at its path, made where missing.
void bind_back_keeps(const ChildSpec& spec, const std::vector<const char*>& paths, int* fds, const char* folder,
                     const char* step);
// O_PATH descriptor of a mount path with no link in it, or the child ends.
int open_mount_path(const ChildSpec& spec, const char* path);
// O_PATH descriptors of the masks' sources (child_mask_sources.cpp), -1 for
// those not asked for: an empty folder and an empty file when `masks`, the
// sandbox's resolv.conf when `resolv_conf`.
struct MaskSourceFds {
    int folder = -1, file = -1, resolv_conf = -1;
};
MaskSourceFds make_mask_sources(const ChildSpec& spec, bool masks, bool resolv_conf);
void setup_loopback(const ChildSpec& spec);        // lo up, relay listeners handed to the parent
void drop_capabilities(const ChildSpec& spec);     // bounding, ambient, effective sets
void apply_landlock(const ChildSpec& spec);        // the allow-list ruleset
void apply_seccomp(const ChildSpec& spec);         // no_new_privs is set before

}  // namespace oms::landlock
