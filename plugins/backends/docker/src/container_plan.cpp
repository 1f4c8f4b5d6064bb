#include "container_plan.hpp"

#include "refusals.hpp"
#include "secret_scan.hpp"

#include <sys/stat.h>

#include <algorithm>

namespace oms::docker {

namespace {

bool inside(const std::string& path, const std::string& root) {
    if (root == "/") return true;
    return path == root || (path.compare(0, root.size(), root) == 0 && path.size() > root.size() &&
                            path[root.size()] == '/');
}

bool inside_any(const std::string& path, const std::vector<std::string>& roots) {
    return std::any_of(roots.begin(), roots.end(), [&](const std::string& r) { return inside(path, r); });
}

enum class Kind { Missing, File, Directory };

Kind kind_of(const std::string& path) {
    struct stat st;
    if (stat(path.c_str(), &st) != 0) return Kind::Missing;
    return S_ISDIR(st.st_mode) ? Kind::Directory : Kind::File;
}

std::string bind(const std::string& path, bool read_only) {
    return "--mount=type=bind,source=" + path + ",target=" + path + (read_only ? ",readonly" : "");
}

std::string tmpfs(const std::string& target, const std::string& size, const std::string& mode,
                  const std::string& owner) {
    // exec: toolchains run what they build or install under HOME and TMPDIR.
    std::string options = "rw,exec,nosuid,nodev,size=" + size + ",mode=" + mode;
    if (!owner.empty()) {
        size_t colon = owner.find(':');
        options += ",uid=" + owner.substr(0, colon) + ",gid=" + owner.substr(colon + 1);
    }
    return "--tmpfs=" + target + ":" + options;
}

// Hides a denied file or folder that a mount would otherwise show.
std::string mask(const std::string& path, Kind kind) {
    if (kind == Kind::Directory) return "--mount=type=tmpfs,target=" + path + ",tmpfs-size=4k,tmpfs-mode=0500";
    return "--mount=type=bind,source=/dev/null,target=" + path + ",readonly";
}

std::vector<std::string> rule_values(const RunInputs& in, oms_rule_kind kind) {
    std::vector<std::string> out;
    for (const PathRule& r : in.rules)
        if (r.kind == kind) out.push_back(r.value);
    return out;
}

void add_hardening(const Settings& s, const std::string& user, std::vector<std::string>& f) {
    f.insert(f.end(), {"--pull=never", "--init", "--read-only", "--cap-drop=ALL",
                       "--security-opt=no-new-privileges", "--user=" + user, "--network=" + s.network,
                       "--pids-limit=" + std::to_string(s.pids_limit), "--memory=" + s.memory,
                       "--memory-swap=" + s.memory, "--cpus=" + s.cpus});
}

void add_tmpfs(const Settings& s, const std::string& user, const RunInputs& in, Mode mode, ContainerPlan& plan) {
    plan.flags.push_back(tmpfs("/tmp", s.tmpfs_size, "1777", ""));
    if (mode == Mode::Warm) {
        plan.flags.push_back(tmpfs(kWarmHome, s.tmpfs_size, "0700", user));
        return;
    }
    plan.flags.push_back(tmpfs(in.private_home, s.tmpfs_size, "0700", user));
    if (!in.temp_dir.empty() && !inside(in.temp_dir, in.private_home) && in.temp_dir != "/tmp")
        plan.flags.push_back(tmpfs(in.temp_dir, s.tmpfs_size, "0700", user));
}

// Worktree read-write, then .git, pinned files, WRITE_DENY paths and the
// worktree's entries a WRITE_DENY_NAME rule names (nested .git folders,
// submodule .git files: `named`, found by the scan) read-only over it.
void add_writable_mounts(const RunInputs& in, const std::vector<std::string>& named, std::vector<std::string>& f) {
    f.push_back(bind(in.worktree, false));
    std::vector<std::string> writable{in.worktree};
    for (const std::string& rw : in.read_write) f.push_back(bind(rw, false)), writable.push_back(rw);
    std::vector<std::string> protect{in.worktree + "/.git"};
    protect.insert(protect.end(), in.pinned.begin(), in.pinned.end());
    for (const std::string& p : rule_values(in, OMS_RULE_WRITE_DENY)) protect.push_back(p);
    for (const std::string& p : named)
        if (inside(p, in.worktree)) protect.push_back(p);
    std::sort(protect.begin(), protect.end());
    protect.erase(std::unique(protect.begin(), protect.end()), protect.end());
    for (const std::string& p : protect)
        if (inside_any(p, writable) && kind_of(p) != Kind::Missing) f.push_back(bind(p, true));
}

// READ_DENY paths the mounts would show: masked whole, not searched.
std::vector<std::string> masked_paths(const RunInputs& in, const std::vector<std::string>& visible) {
    std::vector<std::string> masked;
    for (const std::string& p : rule_values(in, OMS_RULE_READ_DENY))
        if (kind_of(p) != Kind::Missing && inside_any(p, visible)) masked.push_back(p);
    return masked;
}

void add_masks(const RunInputs& in, const std::vector<std::string>& masked, const ScanResult& scan,
               ContainerPlan& plan) {
    for (const std::string& p : masked) plan.flags.push_back(mask(p, kind_of(p)));
    for (const std::string& file : scan.matches) plan.flags.push_back(mask(file, Kind::File));
    if (!scan.complete) {
        if (!in.best_effort)
            throw sdk::Error(OMS_ERR_UNSUPPORTED,
                             "docker: too many files under the mounts to find every secret file "
                             "(-keypair.json, id.json) to hide; use --best-effort to run anyway");
        plan.notes.push_back("secret-file scan stopped at its limit: some matching files stay readable");
    }
}

std::vector<std::string> command_env(const RunInputs& in, Mode mode) {
    std::vector<std::string> env;
    for (const std::string& entry : in.env) {
        std::string name = entry.substr(0, entry.find('='));
        if (mode == Mode::Warm && name == "HOME") env.push_back(std::string("HOME=") + kWarmHome);
        else if (mode == Mode::Warm && name == "TMPDIR") env.push_back("TMPDIR=/tmp");
        else env.push_back(entry);
    }
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
    const std::vector<std::string> masked = masked_paths(in, visible);
    const ScanResult scan = scan_mounts(
        ScanRequest{visible, rule_values(in, OMS_RULE_READ_DENY_SUFFIX), masked, rule_values(in, OMS_RULE_WRITE_DENY_NAME)});
    add_writable_mounts(in, scan.named, plan.flags);
    for (const std::string& ro : in.read_only) plan.flags.push_back(bind(ro, true));
    add_masks(in, masked, scan, plan);
    plan.flags.push_back("--workdir=" + in.worktree);
    plan.flags.insert(plan.flags.end(), s.extra_args.begin(), s.extra_args.end());
    plan.env = command_env(in, mode);
    return plan;
}

std::vector<std::string> env_flags(const ContainerPlan& plan) {
    std::vector<std::string> out;
    for (const std::string& entry : plan.env) out.push_back("--env=" + entry.substr(0, entry.find('=')));
    return out;
}

std::vector<std::string> one_shot_argv(const Settings& s, const ContainerPlan& plan, const std::string& name,
                                       const std::vector<std::string>& argv, bool interactive) {
    std::vector<std::string> out{s.docker, "run", "--rm", "--name=" + name, "--label=oms.managed=one-shot",
                                 "--interactive"};
    if (interactive) out.push_back("--tty");
    out.insert(out.end(), plan.flags.begin(), plan.flags.end());
    for (const std::string& e : env_flags(plan)) out.push_back(e);
    out.push_back(plan.image);
    out.insert(out.end(), argv.begin(), argv.end());
    return out;
}

std::vector<std::string> warm_create_argv(const Settings& s, const ContainerPlan& plan, const std::string& name,
                                          const std::vector<std::string>& labels, const std::string& runner_path,
                                          const std::string& socket_dir) {
    std::vector<std::string> out{s.docker, "run", "--detach", "--name=" + name};
    for (const std::string& label : labels) out.push_back("--label=" + label);
    out.insert(out.end(), plan.flags.begin(), plan.flags.end());
    out.push_back("--mount=type=bind,source=" + runner_path + ",target=" + kRunnerInContainer + ",readonly");
    out.push_back("--mount=type=bind,source=" + socket_dir + ",target=" + kSocketDirInContainer);
    out.push_back(plan.image);
    out.push_back(kRunnerInContainer);
    out.push_back(std::string(kSocketDirInContainer) + "/" + kSocketName);
    return out;
}

}  // namespace oms::docker
