// Obligations of a confining backend: the spec's read, write and network
// denials (each next to the allowed thing still working), daemon sockets,
// privileges, a private PID namespace, raw devices, leftovers, and the
// private HOME left removable.
#include "obligations.hpp"
#include "precedence_table.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <sstream>
#include <thread>

namespace oms::backend_check {
namespace {

std::vector<Result> check_reads(Bench& bench) {
    Scene& s = bench.scene;
    Outcome outcome = bench.shell("cat " + quoted(s.worktree_file) + " " + quoted(s.home + "/notes.txt") + " " +
                                  quoted(s.home_secret) + " " + quoted(s.keypair) + " 2>/dev/null; exit 0");
    if (!outcome.spawned || !has(outcome.out, "VISIBLE-IN-WORKTREE"))
        return {{"read-deny", Verdict::fail, "positive control: a worktree file was not readable, " + describe(outcome)}};
    std::vector<Result> results;
    results.push_back(has(outcome.out, "SECRET-IN-HOME")
                          ? Result{"read-deny-home", Verdict::fail, "a file under HOME was read: " +
                                                                        std::string(has(outcome.out, "SSH") ? "~/.ssh/id_oms_check" : "~/notes.txt")}
                          : Result{"read-deny-home", Verdict::pass, "HOME and ~/.ssh unreadable, the worktree readable"});
    results.push_back(has(outcome.out, "SECRET-KEYPAIR")
                          ? Result{"read-deny-keypair", Verdict::fail, "wallet-keypair.json in the worktree was read"}
                          : Result{"read-deny-keypair", Verdict::pass, "a *-keypair.json in the worktree unreadable"});
    return results;
}

std::vector<Result> check_writes(Bench& bench) {
    Scene& s = bench.scene;
    const std::string inside = s.worktree + "/written-inside.txt";
    const std::string git_new = s.worktree + "/.git/planted-hook";
    Outcome outcome = bench.shell("echo in > " + quoted(inside) + "; echo x > " + quoted(s.outside + "/untouched.txt") +
                                  "; echo x > " + quoted(s.outside + "/new.txt") + "; echo x >> " + quoted(s.git_config) +
                                  "; echo x > " + quoted(git_new) + "; echo x >> " + quoted(s.pinned) + "; rm -f " +
                                  quoted(s.pinned) + "; exit 0");
    if (read_text(inside) != "in\n")
        return {{"write-deny", Verdict::fail, "positive control: writing in the worktree failed, " + describe(outcome)}};
    std::vector<Result> results;
    bool outside_ok = read_text(s.outside + "/untouched.txt") == "ORIGINAL\n" && !path_exists(s.outside + "/new.txt");
    results.push_back(outside_ok ? Result{"write-deny-outside", Verdict::pass, "a folder outside every write root unchanged"}
                                 : Result{"write-deny-outside", Verdict::fail, "a file outside the write roots was changed or created"});
    bool git_ok = read_text(s.git_config) == "[core]\n" && !path_exists(git_new);
    results.push_back(git_ok ? Result{"write-deny-git", Verdict::pass, "the worktree's .git unchanged"}
                             : Result{"write-deny-git", Verdict::fail, "the worktree's .git was changed (config appended or a file planted)"});
    bool pinned_ok = read_text(s.pinned) == "#!/bin/sh\nexit 0\n";
    results.push_back(pinned_ok ? Result{"write-deny-pinned", Verdict::pass, "the pinned file unchanged and still there"}
                                : Result{"write-deny-pinned", Verdict::fail, "the pinned file was changed or removed"});
    if (!pinned_ok) write_text(s.pinned, "#!/bin/sh\nexit 0\n");
    return results;
}

Result check_network(Bench& bench) {
    const char* name = "network";
    bench.allowed_port.reset();
    bench.denied_port.reset();
    Outcome outcome = bench.shell("printf 'allowed '; " + quoted(bench.helper) + " connect tcp " +
                                  std::to_string(bench.allowed_port.port()) + "; printf 'denied '; " + quoted(bench.helper) +
                                  " connect tcp " + std::to_string(bench.denied_port.port()) + "; exit 0");
    bool allowed_arrived = bench.allowed_port.wait_for("oms-check", std::chrono::seconds(5));
    std::this_thread::sleep_for(std::chrono::milliseconds(300));  // let the other listener accept what reached it
    if (bench.denied_port.accepted() > 0 || has(outcome.out, "denied connected"))
        return {name, Verdict::fail, "a host listener on a port the policy does not allow (" +
                                         std::to_string(bench.denied_port.port()) + ") accepted a connection"};
    if (!allowed_arrived) {
        std::string declared = bench.declared_not_granted("net-connect-loopback");
        if (!declared.empty())
            return {name, Verdict::not_granted, "the allowed port is not reachable, as the probe declares (\"" + declared +
                                                    "\"); the other port stays closed"};
        return {name, Verdict::fail, "positive control: the allowed loopback port " + std::to_string(bench.allowed_port.port()) +
                                         " got nothing, and no MISSING line declares it not granted; " + describe(outcome) +
                                         " output: " + outcome.out};
    }
    return {name, Verdict::pass, "the allowed loopback port reached the host, another host listener got nothing"};
}

Result check_daemon_sockets(Bench& bench) {
    const char* name = "daemon-sockets";
    bench.agent_socket.reset();
    bench.worktree_socket.reset();
    Outcome outcome = bench.shell("printf 'denied '; " + quoted(bench.helper) + " connect unix " + quoted(bench.scene.agent_socket) +
                                  "; printf 'allowed '; " + quoted(bench.helper) + " connect unix " +
                                  quoted(bench.worktree_socket_path) + "; exit 0");
    bool allowed_arrived = bench.worktree_socket.wait_for("oms-check", std::chrono::seconds(5));
    std::this_thread::sleep_for(std::chrono::milliseconds(300));  // let the other listener accept what reached it
    if (bench.agent_socket.accepted() > 0 || has(outcome.out, "denied connected"))
        return {name, Verdict::fail, "the socket named by the caller's SSH_AUTH_SOCK (outside the worktree) accepted a connection"};
    if (!allowed_arrived)
        return {name, Verdict::fail, "positive control: a socket in the worktree was not reachable, " + describe(outcome) +
                                         " output: " + outcome.out};
    return {name, Verdict::pass, "the SSH_AUTH_SOCK socket unreachable, a worktree socket reachable"};
}

// The capability bits landlock keeps for root (see docs/backend-checklist.md):
// CHOWN, DAC_OVERRIDE, FOWNER, FSETID, KILL, SETGID, SETUID, NET_BIND_SERVICE.
constexpr unsigned long long kTolerated = (1ull << 0) | (1ull << 1) | (1ull << 3) | (1ull << 4) | (1ull << 5) |
                                          (1ull << 6) | (1ull << 7) | (1ull << 10);

std::vector<Result> check_privileges(Bench& bench) {
    Outcome outcome = bench.run({"/bin/cat", "/proc/self/status"});
    std::istringstream in(outcome.out);
    std::string line, dangerous, nnp;
    int fields = 0;
    for (; std::getline(in, line);) {
        for (const char* set : {"CapEff:", "CapPrm:", "CapBnd:", "CapAmb:"})
            if (line.rfind(set, 0) == 0) {
                ++fields;
                unsigned long long bits = std::strtoull(line.c_str() + std::string(set).size(), nullptr, 16);
                if (bits & ~kTolerated) {
                    std::string value = line.substr(std::string(set).size());
                    value.erase(0, value.find_first_not_of(" \t"));
                    dangerous += std::string(dangerous.empty() ? " " : ", ") + set + " " + value;
                }
            }
        if (line.rfind("NoNewPrivs:", 0) == 0) nnp = line.substr(11);
    }
    if (fields != 4) return {{"capabilities", Verdict::fail, "cannot read /proc/self/status in the command: " + describe(outcome)}};
    std::vector<Result> results;
    results.push_back(dangerous.empty() ? Result{"capabilities", Verdict::pass, "no capability beyond the tolerated file-owner set"}
                                        : Result{"capabilities", Verdict::fail, "the command holds dangerous capabilities:" + dangerous});
    results.push_back(nnp.find('1') != std::string::npos ? Result{"no-new-privs", Verdict::pass, "NoNewPrivs is 1"}
                                                         : Result{"no-new-privs", Verdict::fail, "NoNewPrivs is not set"});
    return results;
}

Result check_pid_namespace(Bench& bench) {
    const char* name = "pid-namespace";
    Outcome outcome = bench.shell("kill -0 $$ && echo self-ok; kill -0 " + std::to_string(getpid()) +
                                  " 2>/dev/null && [ \"$(cat /proc/" + std::to_string(getpid()) +
                                  "/comm 2>/dev/null)\" != sh ] && echo host-visible; exit 0");
    if (!has(outcome.out, "self-ok")) return {name, Verdict::fail, "positive control: the command cannot signal itself, " + describe(outcome)};
    if (has(outcome.out, "host-visible"))
        return {name, Verdict::fail, "the checker's process (pid " + std::to_string(getpid()) + ") can be signalled from the command"};
    return {name, Verdict::pass, "host processes cannot be named from the command"};
}

Result check_raw_devices(Bench& bench) {
    const char* name = "raw-devices";
    std::string candidates;
    for (const char* device : {"/dev/mem", "/dev/kmem", "/dev/port", "/dev/kmsg", "/dev/sda", "/dev/vda", "/dev/nvme0n1",
                               "/dev/xvda", "/dev/loop0", "/dev/dm-0"}) {
        struct stat info;
        if (stat(device, &info) == 0) candidates += std::string(" ") + device;
    }
    Outcome outcome = bench.shell("head -c1 /dev/urandom >/dev/null && echo control-ok; for d in" + candidates +
                                  "; do head -c1 \"$d\" >/dev/null 2>&1 && echo \"opened $d\"; done; exit 0");
    if (!has(outcome.out, "control-ok")) return {name, Verdict::fail, "positive control: /dev/urandom unreadable, " + describe(outcome)};
    auto at = outcome.out.find("opened ");
    if (at != std::string::npos)
        return {name, Verdict::fail, "a raw device was readable: " + outcome.out.substr(at + 7, outcome.out.find('\n', at) - at - 7)};
    return {name, Verdict::pass, "no raw device of the host readable (" + std::to_string(std::count(candidates.begin(), candidates.end(), ' ')) +
                                     " tried), /dev/urandom readable"};
}

std::vector<Result> check_leftovers_and_home(Bench& bench) {
    Scene& s = bench.scene;
    const std::string beat = s.worktree + "/heartbeat";
    // The command leaves a detached writer behind and ends once the writer
    // has written its first beat (on a loaded machine that takes a while, and
    // a beat never written would read as a failed positive control); it also
    // writes into its private HOME.
    // (The writer stops by itself once the checker's folder is gone, so a
    // backend that fails this leaves nothing running for long.)
    Outcome outcome = bench.shell("echo x > \"$HOME/made-by-command\" && [ \"$(cat \"$HOME/made-by-command\")\" = x ] && "
                                  "echo home-written; (setsid sh -c 'while [ -d " + quoted(s.worktree) +
                                  " ]; do date +%s%N > " + quoted(beat) +
                                  "; sleep 0.1; done' >/dev/null 2>&1 </dev/null &); "
                                  "i=0; while [ ! -e " + quoted(beat) + " ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i+1)); done; exit 0");
    std::string private_home = s.private_home;
    std::vector<Result> results;
    if (!path_exists(beat)) {
        results.push_back({"leftovers", Verdict::fail, "positive control: the background writer never ran, " + describe(outcome)});
    } else {
        std::this_thread::sleep_for(std::chrono::milliseconds(400));
        std::string first = read_text(beat);
        std::this_thread::sleep_for(std::chrono::milliseconds(600));
        bool still_running = read_text(beat) != first;
        results.push_back(still_running ? Result{"leftovers", Verdict::fail, "a process the command left behind (setsid) still runs after the run ended"}
                                        : Result{"leftovers", Verdict::pass, "a setsid'd process the command left was gone when the run ended"});
    }
    // The host removes the private HOME after the run (ABI: created before,
    // removed after, by the host): the backend must leave it removable.
    bool had_file = path_exists(private_home + "/made-by-command");
    bool removed = remove_tree(private_home);
    const std::string in_sandbox = bench.declared_in_sandbox_home();
    if (!removed)
        results.push_back({"private-home", Verdict::fail, "the private HOME could not be removed after the run (a mount or a process keeps it)"});
    else if (!has(outcome.out, "home-written"))
        results.push_back({"private-home", Verdict::fail, "positive control: the command could not write and read back $HOME/made-by-command, " + describe(outcome)});
    else if (had_file)
        results.push_back({"private-home", Verdict::pass, "the command wrote in its private HOME, which was removable after the run"});
    else if (!in_sandbox.empty())
        results.push_back({"private-home", Verdict::pass, "HOME is inside the sandbox, as the probe declares (\"" + in_sandbox +
                                                              "\"): written there, and the host's private HOME was removable"});
    else
        results.push_back({"private-home", Verdict::fail, "the command's write to $HOME did not land in the private HOME, and the probe declares no in-sandbox HOME (DETAIL \"private-home: in-sandbox ...\")"});
    return results;
}

}  // namespace

std::string Bench::declared_not_granted(const std::string& rule_kind) const {
    for (auto& line : missing)
        if (line.rfind(rule_kind, 0) == 0) return line;  // the line begins with the rule's name
    return "";
}

std::string Bench::declared_in_sandbox_home() const {
    for (auto& line : details)
        if (line.rfind("private-home: in-sandbox", 0) == 0) return line;
    return "";
}

std::vector<Result> check_confinement_obligations(Bench& bench) {
    std::vector<Result> all;
    auto add = [&all](std::vector<Result> more) { all.insert(all.end(), more.begin(), more.end()); };
    add(check_reads(bench));
    add(check_keypair_attacks(bench));
    add(check_writes(bench));
    add(check_precedence_by_runs(bench));
    all.push_back(check_network(bench));
    all.push_back(check_daemon_sockets(bench));
    add(check_privileges(bench));
    all.push_back(check_pid_namespace(bench));
    all.push_back(check_raw_devices(bench));
    add(check_leftovers_and_home(bench));
    return all;
}

}  // namespace oms::backend_check
