// The confinement ladder in the environments where the full mode cannot
// start, each made here by refuse_syscalls.c around oms: namespaces refused
// and mounts refused (rung 3, Landlock alone, confines there), no Landlock
// (rung 2, namespaces alone, confines there), no Landlock and no namespaces
// (nothing confines: refused in one line before anything runs). In each,
// the same enforcement probes as the full mode, with their positive
// controls and host-side evidence, and what doctor says is what a run gets.
#include "host_listeners.hpp"
#include "host_victim.hpp"
#include "ladder_probes.hpp"
#include "test_support.hpp"

#include "process.hpp"
#include "temp_dir.hpp"

#include <sys/wait.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <sstream>

using namespace oms::test;

namespace {

struct Environment {
    const char* name;  // "full" or a refuse_syscalls environment
    int rung;          // what a run gets there: 1, 2, 3, or 0 (refused)
};

const Environment kEnvironments[] = {
    {"full", 1}, {"namespaces", 3}, {"mounts", 3}, {"landlock", 2}, {"landlock,namespaces", 0}};

std::string refuse_syscalls() {
    const char* path = std::getenv("OMS_REFUSE_SYSCALLS");
    if (!path) throw std::runtime_error("OMS_REFUSE_SYSCALLS is not set (run the tests through ctest)");
    return path;
}

// oms with `args`, in the world, inside `environment`.
ProcessResult oms_in(const World& w, const std::string& environment, const std::vector<std::string>& args) {
    std::vector<std::string> argv;
    if (environment != "full") argv = {refuse_syscalls(), environment, "--"};
    argv.push_back(oms_binary());
    argv.insert(argv.end(), args.begin(), args.end());
    return run_process(argv, {oms_world_env(w), std::nullopt, w.work, 60});
}

ProcessResult run_script(const World& w, const std::string& environment, const std::string& script) {
    return oms_in(w, environment,
                  {"run", "--sandbox", "landlock", "--worktree", w.work, "--pinned", w.pinned, "--", "sh", "-c",
                   expand(w, script)});
}

// The start of the line that names why the full mode does not start there.
std::string expected_refusal(const std::string& environment) {
    const bool root = geteuid() == 0;
    if (environment == "namespaces")
        return root ? "landlock: namespaces are refused here" : "landlock: user namespaces are refused here";
    if (environment == "mounts") return "landlock: mounts are refused in the sandbox's namespace";
    return "Landlock is not available in this kernel";
}

// Where nothing starts, the line also says why rung 2 did not.
std::string expected_rung_2_refusal() {
    return "namespaces without Landlock (rung 2) do not start either: " + expected_refusal("namespaces");
}

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

size_t non_empty_lines(const std::string& text) {
    size_t count = 0;
    for (const auto& line : lines_starting(text, ""))
        if (!line.empty()) ++count;
    return count;
}

std::string start_probe_cache(const World& w) { return w.root / "xdg-state/oms/landlock-start-probe"; }

long long modified_ns(const std::string& path) {
    struct stat st {};
    if (stat(path.c_str(), &st) != 0) return -1;
    return static_cast<long long>(st.st_mtim.tv_sec) * 1000000000LL + st.st_mtim.tv_nsec;
}

}  // namespace

TEST_CASE("the wrapper really makes each environment", "[landlock][ladder]") {
    // Without it every refusal below would be the machine's, not the test's.
    const std::string wrapper = refuse_syscalls();
    const std::vector<std::string> new_network{"/usr/bin/unshare", "--net", "--map-root-user", "/bin/true"};
    const std::vector<std::string> new_mount{"/usr/bin/unshare", "--mount", "--map-root-user",
                                             "/bin/mount", "-t", "tmpfs", "none", "/mnt"};
    auto in = [&](const char* environment, const std::vector<std::string>& argv) {
        std::vector<std::string> wrapped{wrapper, environment, "--"};
        wrapped.insert(wrapped.end(), argv.begin(), argv.end());
        return run_process(wrapped);
    };
    REQUIRE(run_process(new_network).exit_code == 0);  // this machine makes namespaces
    CHECK(in("namespaces", new_network).exit_code != 0);
    CHECK(in("namespaces", {"/bin/sh", "-c", "echo fine"}).out == "fine\n");  // forks still work
    REQUIRE(run_process(new_mount).exit_code == 0);  // and mounts in them
    CHECK(in("mounts", new_mount).exit_code != 0);
    CHECK(in("mounts", new_network).exit_code == 0);  // namespaces still work there
}

TEST_CASE("doctor says the rung a start reaches, or names in one line what is missing", "[landlock][ladder]") {
    require_landlock();
    for (const Environment& environment : kEnvironments) {
        DYNAMIC_SECTION(environment.name) {
            World w;
            auto r = oms_in(w, environment.name, {"doctor", "--sandbox", "landlock"});
            INFO(r.out << r.err);
            const std::string landlock_row = lines_starting(r.out, "  landlock").at(0);
            if (environment.rung == 1) {
                CHECK(r.exit_code == 0);
                CHECK(has(landlock_row, "active"));
                CHECK(has(r.out, "rung: 1, the full mode"));
                CHECK(has(r.out, "namespaces: mount, PID, network"));
                CHECK_FALSE(has(r.out, "missing: rung 3"));
                CHECK(has(r.out, "verify: private network namespace"));  // the control of rung 3's refusal below
            } else if (environment.rung == 2) {
                CHECK(r.exit_code == 0);
                CHECK(has(landlock_row, "active"));
                CHECK(has(r.out, "rung: 2, namespaces without Landlock (the mount namespace carries the file rules; "
                                 "the full mode does not start here: " + expected_refusal(environment.name)));
                CHECK(has(r.out, "namespaces: mount, PID, network"));
                CHECK(has(r.out, "guarantees: file-rules, private-network, private-tmp, process-isolation"));
                CHECK(has(r.out, "missing: rung 2: one layer for files instead of two"));
                // Not the feature list's "no filesystem confinement": the mounts carry it.
                CHECK_FALSE(has(r.out, "no filesystem or network confinement"));
                CHECK(has(r.out, "verify: private network namespace"));
            } else if (environment.rung == 3) {
                CHECK(r.exit_code == 0);
                CHECK(has(landlock_row, "active"));
                CHECK(has(r.out, "rung: 3, Landlock alone (no namespaces; the full mode does not start here: " +
                                     expected_refusal(environment.name)));
                CHECK(has(r.out, "namespaces: none"));
                CHECK(has(r.out, "missing: rung 3: the Surfnet ports are reachable on any host"));
                CHECK_FALSE(has(r.out, "namespaces: mount, PID, network"));
                CHECK(has(r.out, "verify: refused: rung 3 (Landlock alone: namespaces are refused here) gives the "
                                 "check no network namespace"));
            } else {
                CHECK(r.exit_code == 69);
                CHECK_FALSE(has(landlock_row, "active"));
                CHECK(has(landlock_row, expected_refusal(environment.name)));
                CHECK(has(landlock_row, expected_rung_2_refusal()));
                CHECK_FALSE(has(r.out, "rung: "));
            }
            if (environment.rung != 0)
                CHECK(has(r.out, "start check: a confined `true` started here on this rung"));
        }
    }
}

TEST_CASE("a run confines on each rung with the full mode's probes, and is refused in one line where none starts",
          "[landlock][ladder]") {
    require_landlock();
    for (const Environment& environment : kEnvironments) {
        DYNAMIC_SECTION(environment.name) {
            World w;
            make_dirs(w.work + "/src");
            auto r = run_script(w, environment.name, probes());
            INFO(r.out << r.err);
            check_refusals_held(w, r);
            if (environment.rung == 0) {
                CHECK(r.exit_code == 69);
                CHECK(has(r.err, expected_refusal(environment.name)));
                CHECK(has(r.err, expected_rung_2_refusal()));
                CHECK(non_empty_lines(r.err) == 1);
                CHECK(read_file(w.work + "/README") == "WORKTREE-README");  // nothing of the command ran
                CHECK_FALSE(exists(w.work + "/src/created.txt"));
                continue;
            }
            check_confined_run_worked(w, r);  // positive controls, host-side where they can be
        }
    }
}

TEST_CASE("rung 3 holds the network to the allowed TCP port, on any host, and refuses UDP and unix sockets",
          "[landlock][ladder]") {
    require_landlock();
    HostListeners host;
    INFO("port 8899 stayed busy on this machine; the network test needs it free");
    REQUIRE(host.listen_everywhere(8899));
    const uint16_t other = host.listen_any_port();
    const std::string eth = own_ipv4_address();
    REQUIRE_FALSE(eth.empty());
    World w;
    std::string script = "{probe} connect 127.0.0.1 8899; {probe} connect 127.0.0.1 OTHER; "
                         "{probe} connect ETH 8899; {probe} socket udp; {probe} socket unix; {probe} socket tcp";
    script.replace(script.find("OTHER"), 5, std::to_string(other));
    script.replace(script.find("ETH"), 3, eth);
    // Positive control: unconfined, every connect gets its answer.
    auto plain = run_process({"/bin/sh", "-c", expand(w, script)});
    CHECK(lines_starting(plain.out, "OK ").size() == 6);
    auto r = run_script(w, "namespaces", script);
    INFO(r.out << r.err);
    REQUIRE(r.exit_code == 0);
    const auto ok = lines_starting(r.out, "OK ");
    REQUIRE(ok.size() == 3);
    CHECK(ok[0] == "OK reply=hello-8899");  // the allowed port
    CHECK(ok[1] == "OK reply=hello-8899");  // measured gap: the allowed port on another address too
    CHECK(ok[2] == "OK tcp");
    CHECK_FALSE(has(r.out, "hello-" + std::to_string(other)));
    CHECK(lines_starting(r.out, "DENIED ").size() == 3);  // the other port, UDP, unix
}

// A device file outside /dev that this user may open (a copy of /dev/zero,
// mode 0666): made here as root, by tests/run-as-user.sh for the user's pass.
std::string device_node_outside_dev() {
    const char* build = std::getenv("OMS_BUILD_DIR");
    if (!build) throw std::runtime_error("OMS_BUILD_DIR is not set (run the tests through ctest)");
    const std::string node = std::string(build) + "/test-device-node";
    struct stat st {};
    if (stat(node.c_str(), &st) != 0 && geteuid() == 0) {
        if (mknod(node.c_str(), S_IFCHR | 0666, makedev(1, 5)) != 0 || chmod(node.c_str(), 0666) != 0)
            throw std::runtime_error("cannot make " + node);
    }
    if (stat(node.c_str(), &st) != 0 || !S_ISCHR(st.st_mode))
        throw std::runtime_error(node + " is missing: tests/run-as-user.sh makes it for an ordinary user's pass");
    return node;
}

TEST_CASE("device files: /dev holds only the granted ones, and one elsewhere does not open, on rungs 1 and 2",
          "[landlock][ladder]") {
    require_landlock();
    // A device file of the host's that no rule grants: the first one there.
    std::string device;
    for (const char* candidate : {"/dev/kmsg", "/dev/loop-control", "/dev/mem", "/dev/port", "/dev/vda", "/dev/sda"})
        if (exists(candidate)) {
            device = candidate;
            break;
        }
    INFO("none of the usual device files exists on this machine");
    REQUIRE_FALSE(device.empty());
    const std::string node = device_node_outside_dev();
    INFO("the device files: " << device << ", " << node);
    const std::string script =
        "[ -e @DEV@ ] && echo SEEN-DEVICE; echo x > @DEV@ 2>/dev/null && echo WROTE-DEVICE; "
        "head -c 4 @NODE@ | wc -c | sed 's/^/NODE-BYTES=/'; "
        "for d in null zero full tty random urandom; do [ -e /dev/$d ] && echo HAS-$d; done; "
        "echo x > /dev/null && echo WROTE-NULL; head -c 8 /dev/zero | wc -c | sed 's/^/ZERO-BYTES=/'; "
        "readlink /dev/fd; echo via-fd > /dev/fd/1";
    std::string expanded = script;
    for (size_t at; (at = expanded.find("@DEV@")) != std::string::npos;) expanded.replace(at, 5, device);
    expanded.replace(expanded.find("@NODE@"), 6, node);
    // Positive control: on the host the node outside /dev reads.
    CHECK(has(run_process({"/bin/sh", "-c", "head -c 4 " + node + " | wc -c"}).out, "4"));
    for (const char* environment : {"full", "landlock"}) {
        DYNAMIC_SECTION(environment) {
            World w;
            auto r = run_script(w, environment, expanded);
            INFO(r.out << r.err);
            REQUIRE(r.exit_code == 0);
            CHECK_FALSE(has(r.out, "SEEN-DEVICE"));
            CHECK_FALSE(has(r.out, "WROTE-DEVICE"));
            CHECK(has(r.out, "NODE-BYTES=0"));  // nodev: it does not open
            // What shells and tools open is there and works.
            CHECK(lines_starting(r.out, "HAS-").size() == 6);
            CHECK(has(r.out, "WROTE-NULL"));
            CHECK(has(r.out, "ZERO-BYTES=8"));
            CHECK(has(r.out, "/proc/self/fd\n"));
            CHECK(has(r.out, "via-fd"));
            auto plan = oms_in(w, environment, {"policy", "--sandbox", "landlock", "--worktree", w.work});
            CHECK(has(plan.out, "/dev           fresh read-only tmpfs: only the device files below"));
        }
    }
}

namespace {

// A line of /proc/PID/limits.
std::string limit_of(pid_t pid, const std::string& name) {
    for (const auto& line : lines_starting(read_file("/proc/" + std::to_string(pid) + "/limits"), name)) return line;
    return "";
}

// Field 19 of /proc/PID/stat.
long nice_of(pid_t pid) {
    std::string stat = read_file("/proc/" + std::to_string(pid) + "/stat");
    std::istringstream rest(stat.substr(stat.rfind(')') + 2));
    std::string field;
    for (int i = 3; i <= 19; ++i) rest >> field;
    return std::stol(field);
}

}  // namespace

TEST_CASE("rung 3 keeps other processes' limits and scheduling out of reach; metadata outside is the gap doctor names",
          "[landlock][ladder]") {
    require_landlock();
    HostVictim target, control;
    const std::string before = limit_of(target.pid, "Max open files");
    REQUIRE_FALSE(before.empty());
    // Positive control: outside any sandbox the same tools reach a process of ours.
    const std::string other = std::to_string(control.pid);
    CHECK(run_process({"/bin/sh", "-c", "prlimit --pid " + other + " --nofile=64:64 && renice -n 3 -p " + other +
                                            " >/dev/null && echo DONE"}).out == "DONE\n");
    CHECK(has(limit_of(control.pid, "Max open files"), "64"));
    CHECK(nice_of(control.pid) == 3);

    World w;
    make_dirs(w.work + "/src");
    const std::string pid = std::to_string(target.pid);
    const std::string script =
        "prlimit --pid " + pid + " --nofile=32:32 && echo PRLIMIT-OTHER; renice -n 7 -p " + pid +
        " >/dev/null && echo RENICE-OTHER; taskset -p 1 " + pid + " >/dev/null && echo TASKSET-OTHER; "
        "sh -c 'ulimit -n 100 && echo OWN-LIMIT'; nice -n 2 true && echo OWN-NICE; "
        "chmod 0600 {outside}/file && echo CHMOD-OUTSIDE";
    auto r = run_script(w, "namespaces", script);
    INFO(r.out << r.err);
    REQUIRE(r.exit_code == 0);
    CHECK_FALSE(has(r.out, "PRLIMIT-OTHER"));
    CHECK_FALSE(has(r.out, "RENICE-OTHER"));
    CHECK_FALSE(has(r.out, "TASKSET-OTHER"));
    // Host side: the process kept its limit and its priority.
    CHECK(limit_of(target.pid, "Max open files") == before);
    CHECK(nice_of(target.pid) == 0);
    // The command's own limit and priority still change (pid 0).
    CHECK(has(r.out, "OWN-LIMIT"));
    CHECK(has(r.out, "OWN-NICE"));
    // The measured gap, as doctor says it: a mode outside the write roots changes.
    CHECK(has(r.out, "CHMOD-OUTSIDE"));
    struct stat st {};
    REQUIRE(stat((w.outside + "/file").c_str(), &st) == 0);
    CHECK((st.st_mode & 07777) == 0600);
    auto doctor = oms_in(w, "namespaces", {"doctor", "--sandbox", "landlock"});
    CHECK(has(doctor.out, "missing: rung 3: the modes, times and extended attributes of your files outside the "
                          "write roots can be changed"));
    CHECK(has(doctor.out, "no process's limits, priority or CPU affinity can be changed but the caller's own"));
}

TEST_CASE("the start verdict is probed once and then read from the state folder, per environment",
          "[landlock][ladder]") {
    require_landlock();
    World w;
    const std::string cache = start_probe_cache(w);
    REQUIRE(oms_in(w, "full", {"doctor", "--sandbox", "landlock"}).exit_code == 0);
    REQUIRE(has(read_file(cache), "verdict started rung 1"));
    const long long first = modified_ns(cache);
    REQUIRE(oms_in(w, "full", {"doctor", "--sandbox", "landlock"}).exit_code == 0);
    CHECK(modified_ns(cache) == first);  // no second probe

    // Another environment (a seccomp filter around oms) is another key: the
    // full mode's verdict is not taken for it.
    auto alone = oms_in(w, "namespaces", {"doctor", "--sandbox", "landlock"});
    CHECK(has(alone.out, "rung: 3"));
    CHECK(has(read_file(cache), "verdict started rung 3"));
    auto mounts_alone = oms_in(w, "landlock", {"doctor", "--sandbox", "landlock"});
    CHECK(has(mounts_alone.out, "rung: 2"));
    CHECK(has(read_file(cache), "verdict started rung 2"));
    CHECK(has(oms_in(w, "namespaces", {"doctor", "--sandbox", "landlock"}).out, "rung: 3"));
    CHECK(has(read_file(cache), "verdict started rung 3"));
    // A refusal is never stored: each run probes again where nothing starts.
    CHECK(oms_in(w, "landlock,namespaces", {"doctor", "--sandbox", "landlock"}).exit_code == 69);
    CHECK(has(read_file(cache), "verdict started rung 3"));
    CHECK(has(oms_in(w, "full", {"doctor", "--sandbox", "landlock"}).out, "rung: 1"));
    CHECK(has(read_file(cache), "verdict started rung 1"));
}

TEST_CASE("doctor --probe's canaries pass on every rung that starts", "[landlock][ladder]") {
    require_landlock();
    for (const Environment& environment : kEnvironments) {
        if (environment.rung == 0) continue;
        DYNAMIC_SECTION(environment.name) {
            World w;
            auto r = oms_in(w, environment.name, {"doctor", "--probe", "--sandbox", "landlock"});
            INFO(r.out << r.err);
            CHECK(r.exit_code == 0);
            CHECK(lines_starting(r.out, "  pass  ").size() == 6);
            CHECK_FALSE(has(r.out, "inconclusive"));
            CHECK_FALSE(has(r.out, "FAIL"));
        }
    }
}

TEST_CASE("[sandbox] require refuses a rung lacking a guarantee it names, in one line", "[landlock][ladder]") {
    require_landlock();
    World w;
    make_dirs(w.work + "/src");
    const std::string config = w.root / "xdg-config/oms/config.toml";
    write_file(config, read_file(config) + "\n[sandbox]\nrequire = [\"file-rules\", \"private-network\"]\n");
    const std::string script = "echo ran > {work}/src/ran";

    auto full = run_script(w, "full", script);  // positive control: rung 1 gives both
    INFO(full.out << full.err);
    CHECK(full.exit_code == 0);
    CHECK(read_file(w.work + "/src/ran") == "ran\n");
    std::remove((w.work + "/src/ran").c_str());

    auto alone = run_script(w, "namespaces", script);
    INFO(alone.out << alone.err);
    CHECK(alone.exit_code == 69);
    CHECK(non_empty_lines(alone.err) == 1);
    CHECK(has(alone.err, "[sandbox] require (" + config + ":"));
    CHECK(has(alone.err, "asks for private-network, which it does not give here (it gives: file-rules)"));
    CHECK_FALSE(exists(w.work + "/src/ran"));
    auto doctor = oms_in(w, "namespaces", {"doctor", "--sandbox", "landlock"});
    CHECK(doctor.exit_code == 69);
    CHECK_FALSE(has(lines_starting(doctor.out, "  landlock").at(0), "active"));

    // Asking only for what rung 3 gives lets it run.
    const std::string text = read_file(config);
    write_file(config, text.substr(0, text.find("[sandbox]")) + "[sandbox]\nrequire = [\"file-rules\"]\n");
    auto file_rules = run_script(w, "namespaces", script);
    INFO(file_rules.out << file_rules.err);
    CHECK(file_rules.exit_code == 0);
    CHECK(read_file(w.work + "/src/ran") == "ran\n");
}

TEST_CASE("oms verify is refused in one line on rung 3, which has no loopback of the check's own", "[landlock][ladder]") {
    require_landlock();
    World w;
    const std::string marker = w.work + "/check-ran";
    auto r = oms_in(w, "namespaces", {"verify", "--sandbox", "landlock", "--surfnet-cmd", "sleep 30", "--", "sh", "-c",
                                      "touch " + marker});
    INFO(r.out << r.err);
    CHECK(r.exit_code == 77);
    CHECK(has(r.err, "oms verify: landlock: rung 3 (Landlock alone: namespaces are refused here) gives the check no "
                     "network namespace of its own"));
    CHECK(has(r.err, "Nothing ran."));
    CHECK_FALSE(exists(marker));
}
