#include "sandbox_plan.hpp"

#include "fresh_dev_plan.hpp"
#include "dns_responder.hpp"

#include "landlock_uapi.hpp"
#include "path_utils.hpp"
#include "policy_values.hpp"
#include <oms/keypair_walk_cached.hpp>
#include "home_skeleton_plan.hpp"
#include "isolation_plan.hpp"
#include "keeper_client.hpp"
#include "scan_cache_dir.hpp"

#include <oms/run_folder.hpp>
#include <oms/keypair_walk.hpp>

#include <oms/install_roots.hpp>
#include <oms/keypair_targets.hpp>
#include <oms/path.hpp>
#include <oms/path_resolver.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <set>

namespace oms::landlock {

namespace {

using oms::sdk::Error;
using oms::sdk::Rule;

// Who speaks in the keypair search's refusals.
constexpr const char* kBackend = "landlock";

// No MAKE_CHAR/MAKE_BLOCK even in write roots: a device node made there
// would open the raw disk.
constexpr uint64_t kWriteRights = uapi::kFsWriteFile | uapi::kFsRemoveDir | uapi::kFsRemoveFile |
                                  uapi::kFsMakeDir | uapi::kFsMakeReg | uapi::kFsMakeSock | uapi::kFsMakeFifo |
                                  uapi::kFsMakeSym | uapi::kFsRefer | uapi::kFsTruncate | uapi::kFsIoctlDev;

// /dev is not "outside HOME" like the rest: root may read a raw disk there
// and find HOME's secrets in it. Only these nodes are opened up.
const char* const kReadableDevices[] = {"/dev/random", "/dev/urandom", "/dev/shm", "/dev/mqueue"};
// Device files every shell expects to open for writing.
const char* const kWritableDevices[] = {"/dev/null", "/dev/zero", "/dev/full", "/dev/tty", "/dev/pts", "/dev/ptmx"};

std::string env_value(const std::vector<std::string>& env, const std::string& name) {
    for (const auto& entry : env)
        if (entry.compare(0, name.size() + 1, name + "=") == 0) return entry.substr(name.size() + 1);
    return "";
}

void add_rule(Plan& plan, const std::string& path, uint64_t rights, const std::string& why) {
    Kind kind = kind_of(path);
    if (kind == Kind::missing) return;
    if (kind != Kind::folder) rights &= uapi::kFileRights;
    plan.path_rules.push_back(PathRule{path, rights, why});
}

// A container's /dev/ptmx is a link to pts/ptmx: the rule goes on what a
// device path leads to (inside /dev only), as the child opens every rule's
// path with no link in it.
void add_device_rule(Plan& plan, const char* device, uint64_t rights) {
    const auto real = canonical(device);
    if (real && sdk::path::is_inside(*real, "/dev")) add_rule(plan, *real, rights, "device");
}

// Reads outside HOME stay open: every entry beside the path from / down to
// HOME gets read rights, HOME itself none.
void allow_reads_outside_home(Plan& plan, const std::string& home) {
    if (home == "/") return;  // everything is under HOME: only the allowed roots open
    if (home.empty()) {
        for (const auto& child : non_symlink_children("/"))
            if (child != "/dev") add_rule(plan, child, uapi::kReadRights, "no HOME");
        return;
    }
    std::string folder = "/";
    while (folder != home) {
        size_t next = home.find('/', folder.size() + (folder == "/" ? 0 : 1));
        std::string step = home.substr(0, next);
        for (const auto& child : non_symlink_children(folder))
            if (child != step && child != "/dev") add_rule(plan, child, uapi::kReadRights, "outside HOME");
        folder = step;
    }
}

void plan_filesystem(Plan& plan, const oms::sdk::Context& context, const oms::sdk::Policy& policy) {
    allow_reads_outside_home(plan, std::string(context.home()));
    for (const auto& root : values_of(policy, OMS_RULE_READ_ALLOW_TREE))
        add_rule(plan, root, uapi::kReadRights, "read root");
    // A write root that holds HOME (say /tmp with HOME below it) must not
    // reopen reads under HOME: it only gets the write rights.
    const std::string home(context.home());
    for (const auto& root : values_of(policy, OMS_RULE_WRITE_ALLOW_TREE)) {
        bool holds_home = !home.empty() && sdk::path::is_inside(home, root);
        add_rule(plan, root, holds_home ? kWriteRights : uapi::kReadRights | kWriteRights,
                 holds_home ? "write root (holds HOME: no read rights)" : "write root");
    }
    // Writes below a scratch tree land in a per-run overlay (isolation_plan):
    // Landlock lets them through, the mount decides where they go.
    for (const auto& tree : values_of(policy, OMS_RULE_WRITE_SCRATCH_TREE))
        add_rule(plan, tree, uapi::kReadRights | kWriteRights, "scratch tree (writes thrown away at the end)");
    for (const char* device : kReadableDevices) add_device_rule(plan, device, uapi::kReadRights);
    for (const char* device : kWritableDevices)
        add_device_rule(plan, device, uapi::kReadRights | uapi::kFsWriteFile | uapi::kFsIoctlDev);
}

// What the walks of the allowed roots found: keypair files to hide, the
// entries WRITE_DENY_NAME rules name (nested .git folders, submodule .git
// files), the folders too deep to walk (hidden whole) and the install
// folders left unsearched.
struct WalkResults {
    std::vector<std::string> keypairs;
    std::vector<std::string> named;
    std::set<std::string> too_deep;
    std::set<std::string> not_searched;
    std::vector<std::string> searched;  // every root walked for keypair names
    std::string counts;                 // what the walks read and reused, for the debug log
};

// A named entry that is a link protects what it leads to, when that lies in
// a write root (a link elsewhere leads to something read-only already); the
// child binds only link-free paths.
std::vector<std::string> write_denied_by_name(const std::vector<std::string>& named,
                                              const std::vector<std::string>& roots) {
    std::set<std::string> out;
    for (const auto& path : named) {
        auto real = canonical(path);
        if (!real) continue;  // a dangling link protects nothing
        for (const auto& root : roots)
            if (sdk::path::is_inside(*real, root) && *real != root) out.insert(*real);
    }
    return std::vector<std::string>(out.begin(), out.end());
}

// The folders between `path` and the write root holding it, added to `pins`.
void add_folders_up_to_root(std::set<std::string>& pins, const std::string& path,
                            const std::vector<std::string>& roots) {
    for (const auto& root : roots) {
        if (!sdk::path::is_inside(path, root) || path == root) continue;
        for (std::string up = sdk::path::parent_of(path); up != root && sdk::path::is_inside(up, root);
             up = sdk::path::parent_of(up))
            pins.insert(up);
    }
}

// WRITE_DENY paths and the entries of a WRITE_DENY_NAME name become read-only
// bind mounts; the folders between them and their write root become mount
// points so nobody can rename them away. One inside another is covered by it.
void plan_write_denies(Plan& plan, const oms::sdk::Policy& policy, const std::vector<std::string>& named) {
    auto roots = outermost(values_of(policy, OMS_RULE_WRITE_ALLOW_TREE));
    std::set<std::string> denied;
    for (const auto& path : values_of(policy, OMS_RULE_WRITE_DENY)) {
        if (kind_of(path) == Kind::missing) plan.not_present.push_back(path + " (write deny)");
        else denied.insert(path);
    }
    for (const auto& path : write_denied_by_name(named, roots)) denied.insert(path);
    std::set<std::string> pins;
    for (const auto& path : denied) {
        bool covered = std::any_of(denied.begin(), denied.end(), [&](const std::string& other) {
            return other != path && sdk::path::is_inside(path, other);
        });
        if (covered) continue;
        plan.read_only.push_back(path);
        add_folders_up_to_root(pins, path, roots);
    }
    plan.pin_in_place.assign(pins.begin(), pins.end());  // sorted: outer folders first
}

void hide(Plan& plan, const std::string& path, const std::string& what) {
    switch (kind_of(path)) {
    case Kind::folder: plan.hide_folders.push_back(path); break;
    case Kind::file: plan.hide_files.push_back(path); break;
    case Kind::other: plan.hide_files.push_back(path); break;
    case Kind::missing: plan.not_present.push_back(path + " (" + what + ")"); break;
    }
}

// Sockets of servers that run commands or hold keys for the user (ssh-agent,
// tmux, screen, X11, a database): a pathname unix socket is not a Landlock
// right before ABI 8, so the command could otherwise talk to them.
std::vector<std::string> session_sockets(const oms::sdk::Context& context) {
    std::vector<std::string> out;
    if (auto agent = context.env("SSH_AUTH_SOCK")) out.emplace_back(*agent);
    static const char* const kPrefixes[] = {"ssh-", "tmux-", "screen", ".X11-unix", ".ICE-unix", ".s.PGSQL", "gpg-"};
    for (const auto& entry : non_symlink_children("/tmp")) {
        std::string name = entry.substr(5);
        for (const char* prefix : kPrefixes)
            if (name.rfind(prefix, 0) == 0) out.push_back(entry);
    }
    return out;
}

// The install folders (oms/install_roots.hpp) holding one of `roots`, each
// once; those roots are left out of `roots`.
std::set<std::string> take_install_roots(std::vector<std::string>& roots, const std::string& home,
                                         const std::vector<std::string>& write_roots) {
    std::set<std::string> installs;
    std::vector<std::string> searched;
    for (const auto& root : roots) {
        const std::string install = install_roots::unsearched_install_root(root, home, write_roots);
        if (install.empty()) searched.push_back(root);
        else installs.insert(install);
    }
    roots = std::move(searched);
    return installs;
}

// A link in the worktree that leads into an install folder (or above one)
// is a way for the user to write a keypair there without knowing it: a
// command can make target/deploy such a link, and anchor or solana-keygen
// then write the new keypair through it. Such an install folder is searched
// in this run. A relative link without ".." stays in the worktree unless a
// link on its way leaves it, and that link is in `links` too.
std::set<std::string> reached_by_links(const std::set<std::string>& links, const std::set<std::string>& installs) {
    std::set<std::string> reached;
    if (installs.empty()) return reached;
    for (const auto& link : links) {
        const auto text = link_text(link);
        if (text && !text->empty() && (*text)[0] != '/' && text->find("..") == std::string::npos) continue;
        const auto real = canonical(link);
        if (!real) continue;  // leads nowhere now: a write through it fails
        for (const auto& install : installs)
            if (sdk::path::is_inside(*real, install) || sdk::path::is_inside(install, *real)) reached.insert(install);
    }
    return reached;
}

// The folders outside HOME, writable by the user and not searched, that a
// link a command could have made leads to: run 1 makes target/deploy a link
// to /dev/shm, the user's tool writes the program keypair through it, and
// every later run reads /dev/shm (outside HOME, all is readable). Such a
// folder is searched in the run like a --rw folder. One the user cannot
// write cannot receive a key from the user's tools. /tmp and /var/tmp are
// each run's own. A link to a folder above HOME (/, /home) would make the
// search cover the whole machine: it stops the run instead. HOME itself and
// what lies in it are covered already (the skeleton, the walked roots).
std::vector<std::string> outside_folders_reached(const std::set<std::string>& links, const std::string& home,
                                                 const std::vector<std::string>& searched) {
    std::vector<std::string> reached;
    for (const auto& link : links) {
        // As in reached_by_links: a relative link without ".." stays where
        // it is unless a link on its way leaves, which is in `links` too
        // (node_modules/.bin holds hundreds: no realpath for those).
        const auto text = link_text(link);
        if (text && !text->empty() && (*text)[0] != '/' && text->find("..") == std::string::npos) continue;
        const auto real = canonical(link);
        if (!real || kind_of(*real) != Kind::folder) continue;
        if (!home.empty() && sdk::path::is_strictly_below(home, *real))
            throw Error(OMS_ERR_FAILED, "landlock: " + link + " is a link to " + *real +
                                            ", which holds HOME: a key written through it could land anywhere "
                                            "commands read; the command did not run. Remove the link");
        if ((!home.empty() && sdk::path::is_inside(*real, home)) || sdk::path::is_inside_any(*real, searched) ||
            sdk::path::is_inside_any(*real, std::vector<std::string>{"/tmp", "/var/tmp", "/proc", "/sys"}))
            continue;
        if (faccessat(AT_FDCWD, real->c_str(), W_OK, AT_EACCESS) == 0) reached.push_back(*real);
    }
    return outermost(reached);
}

// The user's --rw folders outside HOME and the worktree, resolved. Commands
// write them like the worktree and the user's tools read them after a run.
// One every user writes (--rw /tmp) too: other users' folders in it that the
// user may neither list nor write are passed over (walk_open.hpp).
std::vector<std::string> shared_folders_outside_home(const oms::sdk::Context& context, const std::string& worktree,
                                                     const std::string& home) {
    std::vector<std::string> out;
    for (std::string_view mount : context.read_write()) {
        const auto real = canonical(std::string(mount));
        if (!real || kind_of(*real) != Kind::folder || sdk::path::is_inside(*real, worktree) ||
            sdk::path::is_inside(worktree, *real))
            continue;
        if (!home.empty() && (sdk::path::is_inside(*real, home) || sdk::path::is_inside(home, *real))) continue;
        out.push_back(*real);
    }
    return outermost(out);
}

// The worktree is walked at every start (the command can write there, and
// deploy keypairs live there), through the cache when there is a safe place
// for it: a folder is read again whenever its times moved, as in the Cargo
// caches the command writes too (incremental_scan.hpp). That walk also
// collects the entries WRITE_DENY_NAME rules name, and the links. A --rw
// folder outside HOME gets the same walk: a keypair the user puts there
// later, a nested .git and a link a command leaves there count as in the
// worktree. The other write roots are not searched for names: the private
// HOME and TMPDIR are new each run, the temp folders are the run's own, and
// the Cargo caches hold repositories Cargo writes. The other allowed roots
// under HOME (the toolchains, --rw folders there) are walked for keypairs,
// cached the same way. The install folders no command can write are not
// walked, unless a link a command could have made leads there.
WalkResults walk_allowed_roots(const oms::sdk::Context& context, const oms::sdk::Policy& policy,
                               const std::vector<std::string>& run_folder_bases, const PlanOptions& options) {
    const std::string worktree(context.worktree());
    const std::string home(context.home());
    const auto denied = values_of(policy, OMS_RULE_READ_DENY);
    sdk::ScanRequest full{{worktree}, values_of(policy, OMS_RULE_READ_DENY_SUFFIX), denied,
                          values_of(policy, OMS_RULE_WRITE_DENY_NAME), true, kBackend};
    // Links too: one a command left in a write root there (a Cargo cache)
    // may lead into an install folder, as a worktree link may.
    // The runs' folders are covered, never seen (isolation_plan.hpp); they
    // come and go while a walk of the temp folder holding them runs.
    full.skip.insert(full.skip.end(), run_folder_bases.begin(), run_folder_bases.end());
    sdk::ScanRequest others{{}, full.suffixes, full.skip, {}, true, kBackend};
    others.skip.push_back(worktree);
    for (const auto& shared : shared_folders_outside_home(context, worktree, home)) {
        full.roots.push_back(shared);
        others.skip.push_back(shared);
    }
    // Scratch trees are read roots too (npm's cache): their content is the host's.
    std::vector<std::string> roots;
    for (oms_rule_kind kind : {OMS_RULE_READ_ALLOW_TREE, OMS_RULE_WRITE_SCRATCH_TREE})
        for (const auto& root : values_of(policy, kind))
            if (!home.empty() && sdk::path::is_inside(root, home) && root != home &&
                !sdk::path::is_inside(root, worktree))
                roots.push_back(root);
    // What a command can have written before this run: only the roots whose
    // writes reach the host decide which install folders may go unsearched.
    const auto host_write_roots = values_of(policy, OMS_RULE_WRITE_ALLOW_TREE);
    auto write_roots = host_write_roots;
    for (const auto& tree : values_of(policy, OMS_RULE_WRITE_SCRATCH_TREE)) write_roots.push_back(tree);
    roots = outermost(roots);
    std::set<std::string> installs = take_install_roots(roots, home, host_write_roots);

    const std::string cache_dir =
        scan_cache_dir(std::string(context.state_dir()), values_of(policy, OMS_RULE_WRITE_ALLOW_TREE));
    sdk::ScanStats stats;
    // The keeper's socket lies in the user's run folder base, which no
    // command sees (isolation_plan.hpp covers it).
    const auto run = sdk::run_folder_of(context.private_home(), context.temp_dir());
    KeeperClient keeper(options.scan_keeper && run.known() ? run.base : "", keeper_program_beside_plugin());
    const auto cached_walk = [&](const sdk::ScanRequest& request) {
        return sdk::scan_tree_cached(request, cache_dir, &stats, sdk::kUntrustedWindowNs, &keeper);
    };
    sdk::ScanFindings found = cache_dir.empty() ? sdk::scan_tree(full) : cached_walk(full);
    WalkResults out{{found.secrets.begin(), found.secrets.end()}, {found.named.begin(), found.named.end()},
                    found.too_deep, {}, {}, {}};
    for (const auto& install : reached_by_links(found.links, installs)) {
        installs.erase(install);
        roots.push_back(install);
    }
    others.roots = outermost(roots);
    const auto walk = [&](const sdk::ScanRequest& request) {
        sdk::ScanFindings more = cache_dir.empty() ? sdk::scan_tree(request) : cached_walk(request);
        out.too_deep.insert(more.too_deep.begin(), more.too_deep.end());
        out.keypairs.insert(out.keypairs.end(), more.secrets.begin(), more.secrets.end());
        return more;
    };
    const sdk::ScanFindings more = walk(others);
    std::set<std::string> written_links;  // only those a command could have made
    for (const auto& link : more.links)
        if (sdk::path::is_inside_any(link, write_roots)) written_links.insert(link);
    sdk::ScanRequest reached{{}, full.suffixes, denied, {}, false, kBackend};
    for (const auto& install : reached_by_links(written_links, installs)) {
        installs.erase(install);
        reached.roots.push_back(install);
    }
    if (!reached.roots.empty()) walk(reached);
    out.searched = full.roots;
    out.searched.insert(out.searched.end(), others.roots.begin(), others.roots.end());
    out.searched.insert(out.searched.end(), reached.roots.begin(), reached.roots.end());
    std::set<std::string> all_links = written_links;
    all_links.insert(found.links.begin(), found.links.end());
    sdk::ScanRequest outside{outside_folders_reached(all_links, home, out.searched), full.suffixes, denied, {},
                             false, kBackend};
    if (!outside.roots.empty()) walk(outside);
    out.searched.insert(out.searched.end(), outside.roots.begin(), outside.roots.end());
    out.not_searched = installs;
    out.counts = "keypair search: " + std::to_string(stats.folders_read) + " folders read, " +
                 std::to_string(stats.folders_reused) + " reused from the cache, " +
                 std::to_string(stats.folders_vouched) + " of them unchanged by the scan keeper's word (" +
                 std::to_string(stats.keeper_answers) + " roots answered)";
    return out;
}

// The folders between each hidden keypair and its write root become mount
// points, as for WRITE_DENY: a rename of a mount point fails (EBUSY) in the
// mount namespace that has it, so this run's command cannot move the key's
// folder away and put a decoy at its path while another run of the task
// starts (that run's search would then find the decoy, not the key). The
// key itself is a mount point already (its mask). A concurrent run's own
// mounts do not stop this command: Linux refuses the rename only for mount
// points of the caller's namespace (measured; see docs/security-model.md).
// A scratch tree needs none: renames there land in the run's own overlay.
void pin_keypair_folders(Plan& plan, const oms::sdk::Policy& policy, const std::vector<sdk::KeypairTarget>& targets) {
    const auto roots = outermost(values_of(policy, OMS_RULE_WRITE_ALLOW_TREE));
    const auto scratch = values_of(policy, OMS_RULE_WRITE_SCRATCH_TREE);
    std::set<std::string> pins(plan.pin_in_place.begin(), plan.pin_in_place.end());
    for (const auto& target : targets)
        if (!sdk::path::is_inside_any(target.path, scratch)) add_folders_up_to_root(pins, target.path, roots);
    plan.pin_in_place.assign(pins.begin(), pins.end());  // sorted: outer folders first
}

// The suffixes, and what a command of this run can read: everything
// outside HOME, and below HOME the roots the policy opens.
sdk::KeypairNaming keypair_naming(const oms::sdk::Context& context, const oms::sdk::Policy& policy,
                             const std::vector<std::string>& searched) {
    std::vector<std::string> open_under_home;
    for (oms_rule_kind kind : {OMS_RULE_READ_ALLOW_TREE, OMS_RULE_WRITE_ALLOW_TREE, OMS_RULE_WRITE_SCRATCH_TREE})
        for (const auto& root : values_of(policy, kind)) open_under_home.push_back(root);
    const std::string home(context.home());
    return sdk::KeypairNaming{values_of(policy, OMS_RULE_READ_DENY_SUFFIX),
                              [home, open_under_home](const std::string& path) {
                                  return home.empty() || !sdk::path::is_inside(path, home) ||
                                         sdk::path::is_inside_any(path, open_under_home);
                              },
                              [searched](const std::string& path) { return sdk::path::is_inside_any(path, searched); },
                              kBackend};
}

void plan_read_denies(Plan& plan, const oms::sdk::Context& context, const oms::sdk::Policy& policy,
                      const PlanOptions& options, const WalkResults& walked) {
    const std::vector<std::string>& keypairs = walked.keypairs;
    for (const auto& path : values_of(policy, OMS_RULE_READ_DENY)) hide(plan, path, "read deny");
    for (const auto& path : options.extra_hidden)  // relative entries mean nothing here
        if (!path.empty() && path[0] == '/' && kind_of(path) != Kind::missing) hide(plan, path, "hidden");
    for (const auto& path : session_sockets(context))
        if (kind_of(path) != Kind::missing) hide(plan, path, "hidden");

    // A read allow naming exactly a file exempts it from the suffix rules
    // (the user's keypair_exempt); a read deny above still covers it.
    std::set<std::string> exact_allows;
    for (const auto& root : values_of(policy, OMS_RULE_READ_ALLOW_TREE))
        if (kind_of(root) == Kind::file) exact_allows.insert(root);
    std::vector<std::string> hidden;
    for (const auto& file : keypairs) (exact_allows.count(file) ? plan.exempt_keypairs : hidden).push_back(file);
    const auto targets = sdk::keypair_targets(hidden, keypair_naming(context, policy, walked.searched));
    plan.keypair_matches.insert(hidden.begin(), hidden.end());
    for (const auto& target : targets) {
        (target.folder ? plan.hide_folders : plan.hide_files).push_back(target.path);
        plan.hidden_keypairs.push_back(target.path);
        if (target.inode) plan.mask_identity[target.path] = Plan::Identity{target.device, target.inode};
    }
    pin_keypair_folders(plan, policy, targets);
}

// One mount per real target, and none inside a folder that is hidden whole
// (its path would no longer exist when the mount is made).
void normalize_hidden(Plan& plan) {
    auto canonical_set = [](const std::vector<std::string>& paths) {
        std::set<std::string> out;
        for (const auto& p : paths) out.insert(canonical(p).value_or(p));
        return out;
    };
    std::set<std::string> folders = canonical_set(plan.hide_folders);
    std::set<std::string> files = canonical_set(plan.hide_files);
    auto covered = [&](const std::string& p) {
        for (const auto& f : folders)
            if (p != f && sdk::path::is_inside(p, f)) return true;
        return false;
    };
    plan.hide_folders.clear();
    plan.hide_files.clear();
    for (const auto& f : folders)
        if (!covered(f)) plan.hide_folders.push_back(f);
    for (const auto& f : files)
        if (!covered(f)) plan.hide_files.push_back(f);
}

bool same_file(const std::string& a, const std::string& b) {
    struct stat x, y;
    return stat(a.c_str(), &x) == 0 && stat(b.c_str(), &y) == 0 && x.st_dev == y.st_dev && x.st_ino == y.st_ino;
}

// The shell's words: "command not found" for a name looked up on PATH; for a
// path, whether it is missing (127) or there but not executable (126).
std::string not_found_reason(const std::string& name, const std::string& working_dir) {
    if (name.find('/') == std::string::npos) return "command not found (not on the sandbox's PATH)";
    const std::string full = name[0] == '/' ? name : working_dir + "/" + name;
    struct stat info {};
    if (stat(full.c_str(), &info) != 0) return "No such file or directory";
    if (!S_ISREG(info.st_mode)) return "not a regular file";
    return "Permission denied (not executable)";
}

void plan_network(Plan& plan, const oms::sdk::Policy& policy) {
    std::set<uint16_t> ports;
    // The run's own port (the egress proxy's) is relayed like a fixed one:
    // every run has a namespace of its own, so the relay is this run's alone.
    for (oms_rule_kind kind : {OMS_RULE_NET_CONNECT_LOOPBACK, OMS_RULE_NET_CONNECT_RUN_PORT})
        for (const Rule& r : policy.rules(kind)) {
            if (r.number < 1 || r.number > 65535) throw Error(OMS_ERR_INVALID, "invalid loopback port in policy");
            ports.insert(static_cast<uint16_t>(r.number));
        }
    plan.connect_ports.assign(ports.begin(), ports.end());
    for (const Rule& r : policy.rules(OMS_RULE_NET_PUBLISH_LOOPBACK)) {
        if (r.number < 1 || r.number > 65535) throw Error(OMS_ERR_INVALID, "invalid published port in policy");
        plan.publish_ports.push_back(static_cast<uint16_t>(r.number));
    }
    for (const Rule& r : policy.rules(OMS_RULE_NET_LISTEN_LOOPBACK)) {
        // The very file (device and inode of the real path), which is also
        // what the child execs: a copy, or a script that starts it, is
        // another file and stays in the private network namespace.
        // Resolved once, and that very path checked and exec'd: two lookups
        // of a path through the worktree could meet two different files.
        const auto real = canonical(plan.program);
        if (!real || !same_file(*real, std::string(r.value))) continue;
        plan.program = *real;
        plan.trusted_listener = true;
        plan.own_network = false;  // it must serve the host's loopback
        if (r.number > 0 && r.number <= 65535) plan.bind_ports.push_back(static_cast<uint16_t>(r.number));
        else plan.bind_ports = plan.connect_ports;
    }
}

// The working folder must lie inside the worktree (checked_working_dir), or
// nothing runs. The child enters it below the worktree without leaving it
// (see child_main).
void plan_working_dir(Plan& plan, const oms::sdk::Context& context) {
    plan.working_dir = oms::sdk::checked_working_dir(context);
    plan.working_dir_below =
        plan.working_dir == plan.worktree ? "." : plan.working_dir.substr(plan.worktree == "/" ? 1 : plan.worktree.size() + 1);
}

// Below a scratch tree the child sees an overlay, which gives its files other
// device and inode numbers than the search saw: those masks go by path (the
// overlay is the run's own; its lower layer is read-only).
void forget_overlaid_identities(Plan& plan) {
    for (auto it = plan.mask_identity.begin(); it != plan.mask_identity.end();)
        it = sdk::path::is_inside_any(it->first, plan.scratch_trees) ? plan.mask_identity.erase(it) : std::next(it);
}

}  // namespace

const std::vector<std::string>& default_hidden_sockets() {
    static const std::vector<std::string> sockets{
        "/run/docker.sock", "/var/run/docker.sock", "/run/docker", "/run/containerd", "/run/podman",
        "/run/buildkit",    "/run/crio",            "/run/user",   "/run/systemd",    "/run/dbus",
        "/run/screen",      "/run/tmux",            "/run/postgresql", "/run/mysqld"};
    return sockets;
}

// The walk's answer once every keypair it found is still at its path (a
// shared temp folder's files come and go; a key whose folder is being
// renamed does not hold still): kWalkTries walks, then the run is refused.
WalkResults walk_until_matches_hold(const oms::sdk::Context& context, const oms::sdk::Policy& policy,
                                    const std::vector<std::string>& run_folder_bases, const PlanOptions& options) {
    for (int attempt = 1;; ++attempt) {
        WalkResults walked = walk_allowed_roots(context, policy, run_folder_bases, options);
        const std::string gone = sdk::first_match_gone(walked.keypairs);
        if (gone.empty()) return walked;
        if (attempt == sdk::kWalkTries) sdk::moved_since_search(kBackend, gone);
    }
}

Plan build_plan(const oms::sdk::Context& context, const oms::sdk::Policy& policy, const PlanOptions& options) {
    const sdk::PathResolverScope resolving;  // the folders above HOME and the worktree read once
    Plan plan;
    plan.worktree = std::string(context.worktree());
    plan_working_dir(plan, context);
    for (auto entry : policy.env()) plan.env.emplace_back(entry);
    for (auto arg : context.argv()) plan.argv.emplace_back(arg);
    if (plan.argv.empty()) throw Error(OMS_ERR_INVALID, "no command to run");
    auto program = find_program(plan.argv[0], env_value(plan.env, "PATH"), plan.working_dir);
    if (program) {
        plan.program = *program;
    } else {
        // Never the bare name: execve would take it relative to the working folder.
        plan.program = "/nonexistent/" + plan.argv[0];
        const std::string reason = not_found_reason(plan.argv[0], plan.working_dir);
        plan.not_found = "oms: " + plan.argv[0] + ": " + reason + "\n";
        plan.not_found_status = reason.rfind("Permission denied", 0) == 0 || reason == "not a regular file" ? 126 : 127;
    }

    plan_filesystem(plan, context, policy);
    plan.run_folder_bases = run_folders_to_cover(context);
    const WalkResults walked = walk_until_matches_hold(context, policy, plan.run_folder_bases, options);
    plan_write_denies(plan, policy, walked.named);
    plan_read_denies(plan, context, policy, options, walked);
    plan.too_deep.assign(walked.too_deep.begin(), walked.too_deep.end());
    plan.search_counts = walked.counts;
    plan.not_searched.assign(walked.not_searched.begin(), walked.not_searched.end());
    normalize_hidden(plan);
    plan_network(plan, policy);
    plan_name_resolution(plan);
    plan.refusal_log = std::string(context.refusal_log());
    plan.watch_connects = options.report_connects;
    plan_isolation(plan, context, policy);
    forget_overlaid_identities(plan);
    plan_home_skeleton(plan, context, policy);
    plan_fresh_dev(plan);
    return plan;
}

}  // namespace oms::landlock
