#include "plan_render.hpp"
#include <oms/keypair_walk.hpp>

#include "landlock_uapi.hpp"

namespace oms::landlock {

namespace {

struct RightName {
    uint64_t bit;
    const char* name;
};

const RightName kRightNames[] = {
    {uapi::kFsExecute, "execute"},        {uapi::kFsReadFile, "read_file"},
    {uapi::kFsReadDir, "read_dir"},       {uapi::kFsWriteFile, "write_file"},
    {uapi::kFsTruncate, "truncate"},      {uapi::kFsRemoveDir, "remove_dir"},
    {uapi::kFsRemoveFile, "remove_file"}, {uapi::kFsMakeDir, "make_dir"},
    {uapi::kFsMakeReg, "make_reg"},       {uapi::kFsMakeSym, "make_sym"},
    {uapi::kFsMakeSock, "make_sock"},     {uapi::kFsMakeFifo, "make_fifo"},
    {uapi::kFsMakeChar, "make_char"},     {uapi::kFsMakeBlock, "make_block"},
    {uapi::kFsRefer, "refer"},            {uapi::kFsIoctlDev, "ioctl_dev"},
};

std::string ports_text(const std::vector<uint16_t>& ports) {
    if (ports.empty()) return "none";
    std::string out;
    for (uint16_t p : ports) out += (out.empty() ? "" : ", ") + std::to_string(p);
    return out;
}

void render_mounts(std::vector<std::string>& out, const Plan& plan) {
    out.push_back("mount namespace (private; nothing leaks to the host):");
    out.push_back("  read-only      / and every mount below it (chmod, chown, utimes, xattrs: EROFS), except:");
    for (const auto& p : plan.writable_mounts) out.push_back("  writable       " + p + "  (write root)");
    for (const auto& p : plan.private_temps)
        out.push_back("  private temp   " + p + "  (fresh tmpfs for this run, nosuid; the host's is not visible)");
    for (const auto& p : plan.temp_keeps) out.push_back("  bound back     " + p + "  (same path, same rights, in the private temp)");
    for (const auto& p : plan.temp_fresh) out.push_back("  made empty     " + p + "  (the run's TMPDIR, in the private temp's memory)");
    if (!plan.home_skeleton.empty())
        out.push_back("  home skeleton  " + plan.home_skeleton +
                      "  (read-only tmpfs: only the granted paths below are there, the rest of HOME has no name inside)");
    for (const auto& p : plan.home_keeps) out.push_back("  bound back     " + p + "  (same path, same rights, in HOME's skeleton)");
    for (const auto& link : plan.home_links)
        out.push_back("  link           " + link.folder + "/" + link.name + " -> " + link.text +
                      "  (made again in HOME's skeleton: it leads into a granted path)");
    for (const auto& p : plan.scratch_trees)
        out.push_back("  scratch        " + p + "  (overlay, writes go to the private temp and are thrown away; "
                      "read-only if the overlay cannot be mounted)");
    for (const auto& p : plan.scratch_read_only)
        out.push_back("  scratch        " + p + "  (read-only: no overlay possible here, writes are denied)");
    out.push_back("  /proc          fresh, of the run's PID namespace (read-only)");
    if (plan.fresh_dev) {
        out.push_back("  /dev           fresh read-only tmpfs: only the device files below, bound from the host's; "
                      "every other mount is nodev (a device file elsewhere does not open)");
        for (const auto& p : plan.fresh_dev_keeps) out.push_back("  device         " + p);
    }
    for (const auto& p : plan.hide_folders) out.push_back("  hide folder    " + p + "  (empty read-only folder on top)");
    for (const auto& p : plan.hide_files)
        out.push_back("  hide file      " + p +
                      (plan.mask_identity.count(p) ? "  (a keypair: opening it fails, permission denied)"
                                                   : "  (empty read-only file on top)"));
    for (const auto& p : plan.read_only) out.push_back("  read-only      " + p);
    for (const auto& p : plan.pin_in_place) out.push_back("  pinned folder  " + p + "  (mount point: cannot be renamed)");
    for (const auto& p : plan.not_present) out.push_back("  not present    " + p + "  (nothing to cover)");
    out.push_back("keypair files hidden (suffix rules, found at run start): " +
                  std::to_string(plan.hidden_keypairs.size()));
    for (const auto& p : plan.hidden_keypairs) out.push_back("  hidden         " + p);
    for (const auto& p : plan.exempt_keypairs) out.push_back("  exempt         " + p + "  (exact read allow: keypair_exempt)");
    for (const auto& p : plan.too_deep)
        out.push_back("  too deep       " + p + "  (more than " + std::to_string(sdk::kMaxScanDepth) +
                      " folders deep: not searched, hidden whole)");
    for (const auto& p : plan.not_searched)
        out.push_back("  not searched   " + p +
                      "  (install folder: only your own installs write it, no command can; a keypair you put "
                      "there is readable)");
}

// Rung 3: what the mounts carried in the full mode, Landlock carries alone.
void render_without_namespaces(std::vector<std::string>& out, const Plan& plan) {
    out.push_back("no namespaces (rung 3, Landlock alone): no mount is made; a keypair, a hidden path, .git, a "
                  "pinned file or a scratch tree inside a granted folder is kept out by granting the folder's other "
                  "entries instead of the folder; the system temp folders are not granted (TMPDIR and HOME are "
                  "the run's own)");
    out.push_back("keypair files hidden (suffix rules, found at run start): " +
                  std::to_string(plan.hidden_keypairs.size()));
    for (const auto& p : plan.hidden_keypairs) out.push_back("  hidden         " + p + "  (no Landlock right)");
}

void render_landlock(std::vector<std::string>& out, const Plan& plan, const KernelFeatures& f) {
    if (f.abi == 0) {
        out.push_back("landlock: not in this kernel (rung 2): the mount namespace above carries every file rule; "
                      "no port rule or scope (the network and PID namespaces below are the boundary)");
        return;
    }
    out.push_back("landlock ruleset (ABI " + std::to_string(f.abi) + "), handled: " + rights_text(f.fs_rights));
    for (const auto& r : plan.path_rules) {
        uint64_t rights = r.rights & f.fs_rights;
        out.push_back("  allow " + r.path + "  [" + rights_text(rights) + "]  (" + r.why + ")");
    }
    if (plan.own_network) {
        out.push_back("  tcp ports: not filtered (private network namespace: any port on its lo, relayed ports "
                      "held by the relay)");
    } else if (f.has_tcp()) {
        out.push_back("  tcp connect: " + ports_text(plan.connect_ports));
        out.push_back("  tcp bind: " + ports_text(plan.bind_ports));
    } else {
        out.push_back("  tcp ports: not filtered by this kernel (needs ABI 4)");
    }
    out.push_back(f.has_scopes() ? "  scoped: abstract unix sockets, signals" : "  scoped: none (needs ABI 6)");
}

void render_network(std::vector<std::string>& out, const Plan& plan) {
    if (plan.own_network) {
        out.push_back("network namespace: the task's, only lo (127.0.0.1, ::1): shared with the task's other runs "
                      "with the same relayed ports while any of them runs, a new one otherwise");
        for (uint16_t p : plan.connect_ports)
            out.push_back("  relay 127.0.0.1:" + std::to_string(p) + " -> host 127.0.0.1:" + std::to_string(p));
        for (uint16_t p : plan.publish_ports)
            out.push_back("  published: host 127.0.0.1:" + std::to_string(p) + " -> 127.0.0.1:" + std::to_string(p) +
                          " (while the run lives)");
        out.push_back(plan.publish_ports.empty()
                          ? "  listen/connect: any other port on this lo (reachable from the task's runs only)"
                          : "  listen/connect: any other port on this lo (reachable from the task's runs only, but "
                            "the published ones)");
        out.push_back(plan.resolv_conf.empty()
                          ? "  dns: no resolv.conf to cover (names resolve through /etc/hosts only; others fail)"
                          : "  dns: " + plan.resolv_conf +
                                " covered; the run's own resolver (127.0.0.1:53, or an address of its own in a "
                                "task's shared network) answers every name \"no such host\"");
    } else if (!plan.namespaces) {
        out.push_back("network namespace: the host's (rung 3); Landlock limits TCP connects to the ports above, on "
                      "any host; no unix socket can be opened (seccomp), no UDP");
    } else {
        out.push_back("network namespace: the host's (trusted listener " + plan.program +
                      "); Landlock limits it to the ports above, on any host");
    }
}

}  // namespace

std::string rights_text(uint64_t rights) {
    std::string out;
    for (const auto& r : kRightNames)
        if (rights & r.bit) out += (out.empty() ? "" : ",") + std::string(r.name);
    return out.empty() ? "none" : out;
}

std::vector<std::string> render_plan(const Plan& plan, const KernelFeatures& f, const SeccompProgram& seccomp) {
    std::vector<std::string> out;
    out.push_back("command: " + plan.program + "  (in " + plan.working_dir + ")");
    if (plan.namespaces) render_mounts(out, plan);
    else render_without_namespaces(out, plan);
    render_landlock(out, plan, f);
    render_network(out, plan);
    out.push_back("seccomp filter:");
    for (const auto& line : seccomp.summary) out.push_back("  " + line);
    if (!plan.namespaces) {
        out.push_back("  socket(AF_UNIX): EACCES (rung 3: no mount hides the daemons' sockets)");
        out.push_back("  prlimit64, sched_set*, setpriority, ioprio_set on another process: EPERM (rung 3: no PID "
                      "namespace keeps your other processes out of reach)");
        out.push_back("process: no PID namespace (rung 3): host processes are visible in /proc; every process the "
                      "command leaves is reparented to its init (a subreaper), which kills them all when the command "
                      "ends; no_new_privs; inherited descriptors above 2 closed");
        return out;
    }
    out.push_back("process: own PID namespace (host processes cannot be seen or named; every process left "
                  "when the command ends is killed); no_new_privs; inherited descriptors above 2 closed; capabilities kept: chown, "
                  "dac_override, fowner, fsetid, kill, setgid, setuid, net_bind_service (all others dropped "
                  "from the bounding set)");
    return out;
}

}  // namespace oms::landlock
