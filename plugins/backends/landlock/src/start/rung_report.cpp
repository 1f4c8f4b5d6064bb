#include "rung_report.hpp"

namespace oms::landlock {

std::string rung_line(int rung, const std::string& above) {
    if (rung == 1) return "rung: 1, the full mode (namespaces + Landlock + seccomp)";
    if (rung == 2)
        return "rung: 2, namespaces without Landlock (the mount namespace carries the file rules; the full mode does "
               "not start here: " + above + ")";
    return "rung: 3, Landlock alone (no namespaces; the full mode does not start here: " + above + ")";
}

std::string settings_line(int rung) {
    if (rung == 1)
        return "Landlock sandbox: reads under HOME limited to the worktree and toolchains; writes to the worktree, "
               "private HOME and temp folders; network to the Surfnet ports on 127.0.0.1 only.";
    if (rung == 2)
        return "Namespace sandbox without Landlock (rung 2): reads under HOME limited to the worktree and toolchains; "
               "writes to the worktree, private HOME and temp folders; network to the Surfnet ports on 127.0.0.1 "
               "only.";
    return "Landlock sandbox without namespaces (rung 3): reads under HOME limited to the worktree and toolchains; "
           "writes to the worktree, private HOME and TMPDIR; TCP connects to the Surfnet ports only, on any host.";
}

std::string guarantees_line(int rung) {
    return rung == 3 ? "guarantees: file-rules"
                     : "guarantees: file-rules, private-network, private-tmp, process-isolation";
}

std::vector<std::string> rung_details(int rung) {
    if (rung == 1) return {"namespaces: mount, PID, network (user namespace when not root)"};
    if (rung == 2)
        return {"namespaces: mount, PID, network (user namespace when not root)",
                "files: the mount namespace alone (read-only root, HOME's skeleton, private temp folders, masks, "
                "read-only .git and pinned files, a /dev holding only the granted device files); no Landlock"};
    return {"namespaces: none; files: Landlock rules (protected paths kept out by granting their siblings), the "
            "run's own HOME and TMPDIR by path",
            "network: Landlock TCP port rules (connect to the Surfnet ports only), UDP and unix sockets refused by "
            "seccomp",
            "processes: the run's init is a subreaper and kills whatever the command leaves when it ends"};
}

std::vector<std::string> rung_gaps(int rung, const KernelFeatures& f) {
    if (rung == 1) return {};
    if (rung == 2)
        return {"rung 2: one layer for files instead of two: the mount namespace alone keeps them (on rung 1 Landlock "
                "holds the same rules a second time)",
                "rung 2: the trusted Surfpool binary does not run (on the host's network only Landlock's port rules "
                "would limit it)"};
    std::vector<std::string> gaps = {
        "rung 3: the Surfnet ports are reachable on any host, not only 127.0.0.1, and no private loopback exists "
        "for test servers (binding a port is refused)",
        "rung 3: no new, removed or renamed entry directly in a folder that holds a protected path (the "
        "worktree's top folder, which holds .git; a folder holding a keypair or a pinned file): such a folder keeps "
        "only its listing; its files stay readable and writable in place, but an editor's save by rename fails",
        "rung 3: the host's /tmp and /var/tmp are not writable (TMPDIR and HOME are the run's own)",
        "rung 3: names (not contents) of files in HOME and the host's temp folders can be listed",
        "rung 3: host processes are visible in /proc (their command lines); unix sockets cannot be opened; no "
        "process's limits, priority or CPU affinity can be changed but the caller's own (prlimit, renice, taskset "
        "-p on a pid are refused, the command's own children included)",
        "rung 3: the modes, times and extended attributes of your files outside the write roots can be changed "
        "(chmod, touch, setfattr; not their contents): Landlock has no right for them, and without a mount "
        "namespace no read-only mount stops them",
        "rung 3: in a folder that holds a protected path, the names of its entries can be listed (a keypair-named "
        "folder's included), not their contents",
        "rung 3: if oms itself is killed with SIGKILL, processes the command left keep running",
    };
    if (!f.has_scopes())
        gaps.push_back("rung 3: without Landlock ABI 6 the command can signal your other processes (no PID "
                       "namespace, no signal scope)");
    return gaps;
}

}  // namespace oms::landlock
