#include "rung_report.hpp"

namespace oms::landlock {

std::string rung_line(int rung, const std::string& above) {
    if (rung == 1) return "rung: 1, the full mode (namespaces + Landlock + seccomp)";
    return "rung: 3, Landlock alone (no namespaces; the full mode does not start here: " + above + ")";
}

std::string guarantees_line(int rung) {
    return rung == 1 ? "guarantees: file-rules, private-network, private-tmp, process-isolation"
                     : "guarantees: file-rules";
}

std::vector<std::string> rung_details(int rung) {
    if (rung == 1) return {"namespaces: mount, PID, network (user namespace when not root)"};
    return {"namespaces: none; files: Landlock rules (protected paths kept out by granting their siblings), the "
            "run's own HOME and TMPDIR by path",
            "network: Landlock TCP port rules (connect to the Surfnet ports only), UDP and unix sockets refused by "
            "seccomp",
            "processes: the run's init is a subreaper and kills whatever the command leaves when it ends"};
}

std::vector<std::string> rung_gaps(int rung, const KernelFeatures& f) {
    if (rung == 1) return {};
    std::vector<std::string> gaps = {
        "rung 3: the Surfnet ports are reachable on any host, not only 127.0.0.1, and no private loopback exists "
        "for test servers (binding a port is refused)",
        "rung 3: no new, removed or renamed entry directly in a folder that holds a protected path (the "
        "worktree's top folder, which holds .git; a folder holding a keypair or a pinned file): such a folder keeps "
        "only its listing; its files stay readable and writable in place, but an editor's save by rename fails",
        "rung 3: the host's /tmp and /var/tmp are not writable (TMPDIR and HOME are the run's own)",
        "rung 3: names (not contents) of files in HOME and the host's temp folders can be listed",
        "rung 3: host processes are visible in /proc (their command lines); unix sockets cannot be opened",
        "rung 3: if oms itself is killed with SIGKILL, processes the command left keep running",
    };
    if (!f.has_scopes())
        gaps.push_back("rung 3: without Landlock ABI 6 the command can signal your other processes (no PID "
                       "namespace, no signal scope)");
    return gaps;
}

}  // namespace oms::landlock
