// The plan: everything the child must do, computed in the parent from the
// assembled policy before fork, so the child only makes system calls. Every
// backend step (render, spawn) works from this one structure.
#pragma once
#include <oms/sdk.hpp>

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace oms::landlock {

// One Landlock path rule: `rights` below `path` (or on the file itself).
struct PathRule {
    std::string path;
    uint64_t rights = 0;
    std::string why;  // for render
};

struct Plan {
    std::string worktree;                 // the task's worktree
    std::string working_dir;              // where the command starts: the worktree or below it
    std::string working_dir_below;        // working_dir relative to the worktree ("." for itself)
    std::string program;                  // argv[0] resolved through the policy's PATH
    // Set when argv[0] was not found there: the child then says so, as a
    // shell would, and exits 127 inside the sandbox instead of executing.
    std::string not_found;
    int not_found_status = 127;           // 126: it exists but cannot be executed
    std::vector<std::string> argv;
    std::vector<std::string> env;         // exactly the policy's environment

    // Mount namespace, applied in this order (see isolation_plan.hpp for the
    // first three).
    std::vector<std::string> writable_mounts;  // write roots kept writable when / becomes read-only
    std::vector<std::string> private_temps;    // /tmp, /var/tmp: a fresh tmpfs each, per run
    std::vector<std::string> temp_keeps;       // paths under a private temp bound back at the same path
    // The run's own TMPDIR when it lies in a private temp: made there as an
    // empty folder (memory, like the rest of the private temp) instead of
    // bound back from the host's disk, where a compiler's temporary files
    // cost a disk's round trip each (isolation_plan.hpp).
    std::vector<std::string> temp_fresh;
    // HOME covered by a read-only tmpfs holding only home_keeps, bound back at
    // the same path (home_skeleton_plan.hpp); empty: HOME is left as it is.
    std::string home_skeleton;
    std::vector<std::string> home_keeps;
    // Links the user keeps in HOME (or a folder on the way to a kept path)
    // that lead into a granted path, made again in the skeleton with the
    // same text: the folder they sit in, their name, their text.
    struct HomeLink {
        std::string folder, name, text;
    };
    std::vector<HomeLink> home_links;
    uint32_t home_mode = 0700;             // the skeleton's mode: HOME's, plus its owner's rwx
    uint32_t home_owner[2] = {0, 0};       // HOME's uid and gid (given to the skeleton when oms is root)
    bool list_from_root = false;           // read_dir granted on `/`: every folder can be listed
    // Why HOME got no skeleton although its reads are denied (HOME is `/`,
    // a writable mount holds it): Landlock alone keeps it unreadable then,
    // so rung 2 refuses such a run (mounts_only_plan.hpp). Empty otherwise.
    std::string home_closed_by_landlock_only;
    std::vector<std::string> scratch_trees;    // overlays whose writes are thrown away at the end
    std::vector<std::string> scratch_read_only;  // scratch trees with no overlay possible: read-only
    // The runs' private folders' folders (run_folders_to_cover, listed once
    // per start): covered unless a private temp is, and never walked.
    std::vector<std::string> run_folder_bases;
    std::vector<std::string> pin_in_place;    // bound onto themselves so they cannot be renamed
    std::vector<std::string> read_only;       // bound read-only onto themselves (.git, pinned)
    std::vector<std::string> hide_folders;    // covered by an empty read-only folder
    std::vector<std::string> hide_files;      // covered by an empty read-only file
    std::vector<std::string> not_present;     // deny rules with nothing to cover (render only)
    std::vector<std::string> hidden_keypairs;  // files the suffix rules hide (render, keypair_notices)
    // The search's matches as it found them, in the walked roots: the only
    // files keypair_notices opens (never a link's target elsewhere, which a
    // command may have pointed at a file only oms could read).
    std::set<std::string> keypair_matches;
    // What the keypair search saw at each mask target it gave (canonical
    // path): the child covers that path only if it is still that object.
    struct Identity {
        uint64_t device = 0, inode = 0;
    };
    std::map<std::string, Identity> mask_identity;
    std::vector<std::string> exempt_keypairs;  // keypair-named files an exact read allow exempts (render only)
    std::vector<std::string> too_deep;         // folders past the walk's depth limit, hidden whole
    std::string search_counts;                 // the keypair search's counts, logged at debug level
    std::vector<std::string> not_searched;     // install folders the keypair search leaves out (render only)

    std::vector<PathRule> path_rules;     // Landlock filesystem allow-list
    std::vector<uint16_t> connect_ports;  // TCP ports reachable on 127.0.0.1
    std::vector<uint16_t> bind_ports;     // TCP ports the trusted listener may bind
    std::vector<uint16_t> publish_ports;  // NET_PUBLISH_LOOPBACK: the host's 127.0.0.1:PORT reaches the sandbox's
    bool trusted_listener = false;        // argv[0] is the NET_LISTEN_LOOPBACK binary
    bool own_network = true;              // private network namespace + relay
    // false: rung 3 of the ladder, a start without namespaces, no mounts
    // (landlock_only_plan.hpp): Landlock alone keeps the protected paths out.
    bool namespaces = true;
    // With namespaces (fresh_dev_plan.hpp): /dev a fresh read-only tmpfs
    // with only these device files of the host's bound in, every other
    // mount nodev.
    bool fresh_dev = false;
    std::vector<std::string> fresh_dev_keeps;
    // The host's resolv.conf (its real file), covered by the sandbox's own
    // (nameserver 127.0.0.1, answered by the init): empty when the run shares
    // the host's network or there is no file to cover.
    std::string resolv_conf;
    // Where the run's resolver and loopback refusals are appended (the
    // context's refusal_log, oms/refusal_log.hpp): empty for none.
    std::string refusal_log;
    // The command's connects watched by the init (off_loopback_watch.hpp):
    // [plugin.landlock] report_connects.
    bool watch_connects = true;
};

struct PlanOptions {
    std::vector<std::string> extra_hidden;  // [plugin.landlock] hide (daemon sockets, ...)
    bool scan_keeper = true;                // [plugin.landlock] scan_keeper (keeper_client.hpp)
    bool report_connects = true;            // [plugin.landlock] report_connects (off_loopback_watch.hpp)
};

// Throws oms::sdk::Error when a rule is malformed. A command that cannot be
// found sets Plan::not_found (a shell's exit 127), not an error.
Plan build_plan(const oms::sdk::Context& context, const oms::sdk::Policy& policy, const PlanOptions& options);

// Folders and sockets of daemons hidden by default (docker, containerd,
// systemd, D-Bus, per-user runtime dirs...): each one would be a way out.
const std::vector<std::string>& default_hidden_sockets();

}  // namespace oms::landlock
