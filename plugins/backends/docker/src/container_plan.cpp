#include "container_plan.hpp"

#include "container_view.hpp"
#include "link_free_path.hpp"
#include "mount_option.hpp"
#include "name_resolution.hpp"
#include "private_home_files.hpp"
#include "refusals.hpp"

#include <oms/path.hpp>
#include <oms/run_folder.hpp>
#include <oms/secret_search.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>

namespace oms::docker {

namespace {

// The deepest of `roots` holding `path` (a command may have written below it).
const std::string* containing_root(const std::string& path, const std::vector<std::string>& roots) {
    const std::string* best = nullptr;
    for (const std::string& r : roots)
        if (sdk::path::is_inside(path, r) && (!best || r.size() > best->size())) best = &r;
    return best;
}

std::string resolved_or_empty(const std::string& path) {
    char* resolved = realpath(path.c_str(), nullptr);
    if (!resolved) return "";
    std::string out = resolved;
    std::free(resolved);
    return out;
}

std::string bind(const std::string& path, bool read_only) { return bind_mount_flag(path, path, read_only); }

std::string tmpfs(const std::string& target, const std::string& size, const std::string& mode,
                  const std::string& owner) {
    require_representable(target, "private folder");
    if (target.find_first_of(":,") != std::string::npos)
        throw sdk::Error(OMS_ERR_UNSUPPORTED, "docker: the private folder " + target +
                                                  " holds ':' or ',', which docker's --tmpfs syntax cannot carry");
    // exec: toolchains run what they build or install under HOME and TMPDIR.
    std::string options = "rw,exec,nosuid,nodev,size=" + size + ",mode=" + mode;
    if (!owner.empty()) {
        size_t colon = owner.find(':');
        options += ",uid=" + owner.substr(0, colon) + ",gid=" + owner.substr(colon + 1);
    }
    return "--tmpfs=" + target + ":" + options;
}

// Hides a denied file or folder that a mount would otherwise show.
std::string mask(const std::string& path, PathKind kind) {
    if (kind == PathKind::Directory) return tmpfs_mount_flag(path, "tmpfs-size=4k,tmpfs-mode=0500");
    return bind_mount_flag("/dev/null", path, true);
}

std::vector<std::string> rule_values(const RunInputs& in, oms_rule_kind kind) {
    std::vector<std::string> out;
    for (const PathRule& r : in.rules)
        if (r.kind == kind) out.push_back(r.value);
    return out;
}

// No --init: the runner is the container's PID 1 (warm and one-shot), so
// nothing a command can write to (an init of the same uid is dumpable: its
// /proc/1/mem is writable) sits above the runner, no process inside can
// signal it, and its death ends the whole container (no other process can
// take over its pid).
void add_hardening(const Settings& s, const std::string& user, std::vector<std::string>& f) {
    f.push_back("--pull=never");
    f.insert(f.end(), {"--read-only", "--cap-drop=ALL",
                       "--security-opt=no-new-privileges", "--user=" + user, "--network=" + s.network,
                       "--pids-limit=" + std::to_string(s.pids_limit), "--memory=" + s.memory,
                       "--memory-swap=" + s.memory, "--cpus=" + s.cpus});
}

// The host's /tmp when the user made it (or a folder holding it) a --rw or
// --ro mount: a tmpfs over it would hide what the user asked for.
bool host_tmp_chosen(const RunInputs& in) {
    for (const auto* mounts : {&in.read_write, &in.read_only})
        for (const std::string& mount : *mounts)
            if (sdk::path::is_inside("/tmp", mount)) return true;
    return false;
}

void add_tmpfs(const Settings& s, const std::string& user, const RunInputs& in, Mode mode, ContainerPlan& plan) {
    if (!host_tmp_chosen(in)) plan.flags.push_back(tmpfs("/tmp", s.tmpfs_size, "1777", ""));
    if (mode == Mode::Warm) {
        plan.flags.push_back(tmpfs(kWarmHome, s.tmpfs_size, "0700", user));
        return;
    }
    plan.flags.push_back(tmpfs(in.private_home, s.tmpfs_size, "0700", user));
    if (!in.temp_dir.empty() && !sdk::path::is_inside(in.temp_dir, in.private_home) && in.temp_dir != "/tmp")
        plan.flags.push_back(tmpfs(in.temp_dir, s.tmpfs_size, "0700", user));
}

// The folders between `root` and `path`, each bound onto itself read-write:
// a mount point cannot be renamed or removed (EBUSY), so `mv tests tests.old`
// cannot carry a read-only file away from its place while the folders stay
// writable. The docker counterpart of the landlock backend's parent pins.
void pin_parents(const std::string& root, const std::string& path, std::vector<std::string>& pinned) {
    for (size_t slash = path.find('/', root.size() + 1); slash != std::string::npos; slash = path.find('/', slash + 1))
        pinned.push_back(path.substr(0, slash));
}

std::string identity_entry(const PathIdentity& id, const std::string& path) {
    return std::to_string(id.device) + ":" + std::to_string(id.inode) + ":" + path;
}

bool worktree_write_denied(const RunInputs& in) {
    const std::string real_worktree = resolved_or_empty(in.worktree);
    for (const std::string& p : rule_values(in, OMS_RULE_WRITE_DENY))
        if (p == in.worktree || (!real_worktree.empty() && resolved_or_empty(p) == real_worktree)) return true;
    return false;
}

[[noreturn]] void moved_since_search(const std::string& path) {
    throw sdk::Error(OMS_ERR_FAILED, "docker: the keypair " + path +
                                         " was moved or removed while the run started, after the search found it; "
                                         "the command did not run. Something is moving files or folders there: run "
                                         "again once it has stopped");
}

// The folders between a write root and each keypair the scan found in it:
// pinned like a protected path's, so a command of the container cannot
// rename them (a mount point), and checked by the runner, so one the daemon
// made because a concurrent rename had moved the real one away (the mask
// would sit in it, the key beside it) stops the run. The keypair itself must
// still be where the scan saw it.
struct ContainerUser {
    uid_t uid;
    gid_t gid;
};

// "UID:GID" (normalized_user); an id that is not a number matches no owner,
// so every folder is pinned and checked.
ContainerUser container_user(const std::string& user) {
    auto number = [](const std::string& text) {
        char* end = nullptr;
        const unsigned long value = std::strtoul(text.c_str(), &end, 10);
        return !text.empty() && end && *end == '\0' ? value : static_cast<unsigned long>(-1);
    };
    const size_t colon = user.find(':');
    return {static_cast<uid_t>(number(user.substr(0, colon))),
            static_cast<gid_t>(colon == std::string::npos ? -1 : number(user.substr(colon + 1)))};
}

// Whether the container's user can search every folder from `root` down to
// `path`'s parent, or open one it owns (chmod). A keypair below another
// user's closed folder is out of the command's reach: no pin is needed, and
// the runner, as that user, could not check one.
bool reachable_by(const ContainerUser& user, const std::string& root, const std::string& path) {
    if (user.uid == static_cast<uid_t>(-1)) return true;
    for (size_t slash = path.find('/', root.size() + 1); slash != std::string::npos; slash = path.find('/', slash + 1)) {
        struct stat st;
        if (lstat(path.substr(0, slash).c_str(), &st) != 0) return true;  // judged by the identity check
        if (st.st_uid == user.uid) continue;
        const mode_t search = st.st_gid == user.gid ? S_IXGRP : S_IXOTH;
        if (!(st.st_mode & search)) return false;
    }
    return true;
}

void pin_keypair_folders(const sdk::SecretFindings& scan, const std::vector<std::string>& writable, const std::string& user,
                         std::vector<std::string>& parents) {
    std::vector<std::string> keypairs = scan.files;
    keypairs.insert(keypairs.end(), scan.folders.begin(), scan.folders.end());
    const ContainerUser who = container_user(user);
    for (const std::string& k : keypairs) {
        const std::string* root = containing_root(k, writable);
        if (!root || *root == k) continue;
        if (link_free_identity(*root, k, "secret file").kind == PathKind::Missing) moved_since_search(k);
        if (reachable_by(who, *root, k)) pin_parents(*root, k, parents);
    }
}

// Worktree read-write (read-only when a WRITE_DENY rule names it whole), then
// .git, pinned files, WRITE_DENY paths and the worktree's entries a WRITE_DENY_NAME rule names (nested .git folders,
// submodule .git files: `scan.named`) read-only over it, their parent folders
// and those of the keypairs to mask pinned as mount points. Each is found
// from its mount root without following links.
void add_writable_mounts(const RunInputs& in, const sdk::SecretFindings& scan, ContainerPlan& plan) {
    const std::vector<std::string>& named = scan.named;
    std::vector<std::string>& f = plan.flags;
    // A worktree denied writes as a whole (oms verify's snapshot) is bound
    // read-only; nothing below it then needs a mount of its own.
    const bool read_only_worktree = worktree_write_denied(in);
    f.push_back(bind(in.worktree, read_only_worktree));
    std::vector<std::string> writable;
    if (!read_only_worktree) writable.push_back(in.worktree);
    for (const std::string& rw : in.read_write) f.push_back(bind(rw, false)), writable.push_back(rw);
    std::vector<std::string> protect{in.worktree + "/.git"};
    protect.insert(protect.end(), in.pinned.begin(), in.pinned.end());
    for (const std::string& p : rule_values(in, OMS_RULE_WRITE_DENY)) protect.push_back(p);
    for (const std::string& p : named)
        if (sdk::path::is_inside(p, in.worktree)) protect.push_back(p);
    std::sort(protect.begin(), protect.end());
    protect.erase(std::unique(protect.begin(), protect.end()), protect.end());
    std::vector<std::string> parents, read_only;
    for (const std::string& p : protect) {
        const std::string* root = containing_root(p, writable);
        if (!root || *root == p) continue;
        PathIdentity id = link_free_identity(*root, p, "protected path");
        if (id.kind == PathKind::Missing) continue;
        pin_parents(*root, p, parents);
        read_only.push_back(p);
        plan.expected.push_back(identity_entry(id, p));
    }
    pin_keypair_folders(scan, writable, plan.user, parents);
    std::sort(parents.begin(), parents.end());
    parents.erase(std::unique(parents.begin(), parents.end()), parents.end());
    for (const std::string& d : parents) {
        if (std::binary_search(read_only.begin(), read_only.end(), d)) continue;
        f.push_back(bind(d, false));
        plan.expected.push_back(identity_entry(link_free_identity(*containing_root(d, writable), d, "pinned folder"), d));
    }
    for (const std::string& p : read_only) f.push_back(bind(p, true));
}

// A READ_DENY path the mounts would show, and what it is (masked whole, not searched).
struct MaskedPath {
    std::string path;
    PathKind kind;
    // Passable (x for all) rather than closed: this run's HOME and TMPDIR
    // are mounts below it, which the command's user must reach.
    bool passable = false;
};

// Each is found from its mount root without following links.
std::vector<MaskedPath> masked_paths(const RunInputs& in, const std::vector<std::string>& visible) {
    std::vector<MaskedPath> masked;
    for (const std::string& p : rule_values(in, OMS_RULE_READ_DENY)) {
        const std::string* root = containing_root(p, visible);
        if (!root) continue;
        const PathKind kind = link_free_kind(*root, p, "denied path");
        if (kind != PathKind::Missing) masked.push_back({p, kind});
    }
    // The folders of the runs' private folders (this user's and the other
    // users' beside it), when a mount shows them (--rw /tmp): hidden whole,
    // so a command reaches no other run's folder, not even one that starts
    // later. This run's HOME and TMPDIR are tmpfs mounts of their own inside
    // its base, which stays passable to reach them.
    const auto run = sdk::run_folder_of(in.private_home, in.temp_dir);
    for (const std::string& base : sdk::run_folder_bases(run)) {
        // The folder itself as a mount would show every run's; a folder
        // below it (oms verify's snapshot) is mounted on top of the cover.
        for (const std::string& root : visible)
            if (root == base)
                throw sdk::Error(OMS_ERR_INVALID, "docker: " + root + " is " + base +
                                                      ", where oms keeps the runs' private folders, which no "
                                                      "command sees; nothing ran. Choose another folder");
        if (const std::string* root = containing_root(base, visible))
            if (link_free_kind(*root, base, "run folders' folder") == PathKind::Directory)
                masked.push_back({base, PathKind::Directory, base == run.base});
    }
    return masked;
}

std::vector<std::string> paths_of(const std::vector<MaskedPath>& masked) {
    std::vector<std::string> out;
    for (const MaskedPath& m : masked) out.push_back(m.path);
    return out;
}

void add_masks(const RunInputs& in, const std::vector<std::string>& visible, const std::vector<MaskedPath>& masked,
               const sdk::SecretFindings& scan, ContainerPlan& plan) {
    sdk::refuse_unhideable(scan, "docker");
    for (const MaskedPath& m : masked)
        plan.flags.push_back(m.passable ? tmpfs_mount_flag(m.path, "tmpfs-size=4k,tmpfs-mode=0711") : mask(m.path, m.kind));
    for (const std::string& file : scan.files) {
        const std::string* root = containing_root(file, visible);
        if (root) link_free_kind(*root, file, "secret file");
        plan.flags.push_back(mask(file, PathKind::File));
    }
    for (const std::string& folder : scan.folders) {
        const std::string* root = containing_root(folder, visible);
        if (root) link_free_kind(*root, folder, "secret folder");
        plan.flags.push_back(mask(folder, PathKind::Directory));
    }
    if (!scan.complete) {
        if (!in.best_effort)
            throw sdk::Error(OMS_ERR_UNSUPPORTED,
                             "docker: too many files under the mounts to find every secret file "
                             "(-keypair.json, id.json) to hide; use --best-effort to run anyway");
        plan.notes.push_back("secret-file scan stopped at its limit: some matching files stay readable");
    }
}

// The policy's environment (less a toolchain HOME the container does not
// show), HOME and TMPDIR where the mode puts them, and
// the private HOME's files for the runner to write into HOME (it takes the
// variable out before the command starts).
std::vector<std::string> command_env(const RunInputs& in, Mode mode, ContainerPlan& plan) {
    std::vector<std::string> env;
    bool has_home = false;
    for (const std::string& entry : in.env) {
        std::string name = entry.substr(0, entry.find('='));
        has_home = has_home || name == "HOME";
        if (mode == Mode::Warm && name == "HOME") env.push_back(std::string("HOME=") + kWarmHome);
        else if (mode == Mode::Warm && name == "TMPDIR") env.push_back("TMPDIR=/tmp");
        else if (name != home_seed::kVariable && !unreachable_toolchain_home(entry, in)) env.push_back(entry);
    }
    if (!has_home) return env;  // the policy denies HOME: the command has none to find them in
    PrivateHomeFiles home = private_home_files(in);
    if (!home.entries.empty()) env.push_back(std::string(home_seed::kVariable) + "=" + home_seed::encode(home.entries));
    plan.notes.insert(plan.notes.end(), home.notes.begin(), home.notes.end());
    return env;
}

}  // namespace

std::string normalized_user(const std::string& user) {
    return user.find(':') == std::string::npos ? user + ":" + user : user;
}

ContainerPlan plan_container(const Settings& s, const std::string& image, const std::string& user,
                             const RunInputs& in, Mode mode, const std::string& socket) {
    check_mount(in.worktree, "worktree", socket);
    for (const std::string& p : in.read_only) check_mount(p, "read-only mount (--ro)", socket);
    for (const std::string& p : in.read_write) check_mount(p, "read-write mount (--rw)", socket);

    ContainerPlan plan;
    plan.image = image;
    plan.user = normalized_user(user);
    add_hardening(s, plan.user, plan.flags);
    add_tmpfs(s, plan.user, in, mode, plan);
    std::vector<std::string> visible{in.worktree};
    visible.insert(visible.end(), in.read_only.begin(), in.read_only.end());
    visible.insert(visible.end(), in.read_write.begin(), in.read_write.end());
    // One walk of everything the container sees, before any mount is planned:
    // keypairs to mask and the worktree's nested .git to protect.
    const std::vector<MaskedPath> masked = masked_paths(in, visible);
    sdk::SecretSearch request{"docker", visible, rule_values(in, OMS_RULE_READ_DENY_SUFFIX), paths_of(masked),
                              rule_values(in, OMS_RULE_WRITE_DENY_NAME)};
    // The container runs as oms's own uid and gid, with no other group.
    request.skip_closed_folders_of_others = plan.user == std::to_string(geteuid()) + ":" + std::to_string(getegid());
    const sdk::SecretFindings scan = sdk::find_secrets(request);
    add_writable_mounts(in, scan, plan);
    for (const std::string& ro : in.read_only) plan.flags.push_back(bind(ro, true));
    add_masks(in, visible, masked, scan, plan);
    plan.keypair_matches = scan.seen;
    plan.keypair_suffixes = rule_values(in, OMS_RULE_READ_DENY_SUFFIX);
    require_representable(in.worktree, "worktree");
    add_name_resolution(s, in, plan);
    // A warm container serves every command of the task: it starts in the
    // worktree, and each command names its own working folder (runner
    // request, exec body). A one-shot container starts in the command's.
    plan.flags.push_back("--workdir=" + (mode == Mode::Warm || in.working_dir.empty() ? in.worktree : in.working_dir));
    plan.flags.insert(plan.flags.end(), s.extra_args.begin(), s.extra_args.end());
    plan.env = command_env(in, mode, plan);
    return plan;
}

std::vector<std::string> env_flags(const ContainerPlan& plan) {
    std::vector<std::string> out;
    for (const std::string& entry : plan.env) out.push_back("--env=" + entry.substr(0, entry.find('=')));
    return out;
}

namespace {

// --keep-env=NAME for each variable of the policy: the runner drops the rest.
std::vector<std::string> keep_env_flags(const ContainerPlan& plan) {
    std::vector<std::string> out;
    for (const std::string& entry : plan.env) out.push_back("--keep-env=" + entry.substr(0, entry.find('=')));
    return out;
}

// --expect=DEV:INO:PATH for each path the runner must find as checked.
std::vector<std::string> expect_flags(const ContainerPlan& plan) {
    std::vector<std::string> out;
    for (const std::string& e : plan.expected) out.push_back("--expect=" + e);
    return out;
}

}  // namespace

std::vector<std::string> restricted_argv(const ContainerPlan& plan, const std::vector<std::string>& argv) {
    std::vector<std::string> out{kRunnerInContainer};
    for (const std::string& e : keep_env_flags(plan)) out.push_back(e);
    out.push_back("--exec");
    out.insert(out.end(), argv.begin(), argv.end());
    return out;
}

std::vector<std::string> one_shot_argv(const Settings& s, const ContainerPlan& plan, const std::string& name,
                                       const std::vector<std::string>& argv, bool interactive,
                                       const std::string& runner_path, const std::string& socket_dir,
                                       const std::vector<std::string>& labels) {
    std::vector<std::string> out{s.docker, "run", "--rm", "--name=" + name};
    for (const std::string& label : labels) out.push_back("--label=" + label);
    out.push_back("--interactive");
    if (interactive) out.push_back("--tty");
    out.insert(out.end(), plan.flags.begin(), plan.flags.end());
    out.push_back(bind_mount_flag(runner_path, kRunnerInContainer, true));
    if (!socket_dir.empty()) out.push_back(bind_mount_flag(socket_dir, kSocketDirInContainer, true));
    for (const std::string& e : env_flags(plan)) out.push_back(e);
    out.push_back(plan.image);
    out.push_back(kRunnerInContainer);
    for (const std::string& e : expect_flags(plan)) out.push_back(e);
    out.insert(out.end(), plan.runner_args.begin(), plan.runner_args.end());
    out.push_back(std::string("--lifeline=") + kSocketDirInContainer + "/" + kLifelineSocketName);
    for (const std::string& e : keep_env_flags(plan)) out.push_back(e);
    out.push_back("--exec");
    out.insert(out.end(), argv.begin(), argv.end());
    return out;
}

std::vector<std::string> warm_create_argv(const Settings& s, const ContainerPlan& plan, const std::string& name,
                                          const std::vector<std::string>& labels, const std::string& runner_path,
                                          const std::string& socket_dir) {
    std::vector<std::string> out{s.docker, "run", "--detach", "--name=" + name};
    for (const std::string& label : labels) out.push_back("--label=" + label);
    out.insert(out.end(), plan.flags.begin(), plan.flags.end());
    out.push_back(bind_mount_flag(runner_path, kRunnerInContainer, true));
    out.push_back(bind_mount_flag(socket_dir, kSocketDirInContainer, false));
    out.push_back(plan.image);
    out.push_back(kRunnerInContainer);
    for (const std::string& e : expect_flags(plan)) out.push_back(e);
    out.insert(out.end(), plan.runner_args.begin(), plan.runner_args.end());
    out.push_back(std::string(kSocketDirInContainer) + "/" + kSocketName);
    return out;
}

}  // namespace oms::docker
