// Process isolation and what one run can leave for the next (issue 9,
// classes 2, 5, 6): the command runs in its own PID namespace, nothing it
// starts outlives `oms run`, host processes cannot be seen or touched, and
// /tmp is private to the run.
#include "host_victim.hpp"
#include "isolation_support.hpp"

#include <dirent.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <sstream>
#include <thread>

using namespace oms::test;

namespace {

// Host processes whose command line holds `mark`.
std::vector<pid_t> host_processes_with(const std::string& mark) {
    std::vector<pid_t> found;
    DIR* proc = opendir("/proc");
    while (dirent* entry = proc ? readdir(proc) : nullptr) {
        pid_t pid = static_cast<pid_t>(atoi(entry->d_name));
        if (pid <= 0) continue;
        std::ifstream in(std::string("/proc/") + entry->d_name + "/cmdline");
        std::stringstream text;
        text << in.rdbuf();
        if (has(text.str(), mark)) found.push_back(pid);
    }
    if (proc) closedir(proc);
    return found;
}

size_t file_size(const std::string& path) {
    std::ifstream in(path, std::ios::binary | std::ios::ate);
    return in ? static_cast<size_t>(in.tellg()) : 0;
}


}  // namespace

TEST_CASE("a daemon started by a run is gone when the run returns", "[landlock][isolation][class6]") {
    require_landlock();
    FOR_EACH_DRIVER(driver) {
        World w;
        const std::string mark = unique_mark("oms-daemon");
        // One setsid daemon, one double-forked: each writes a heartbeat into
        // a folder of the worktree and tries the run's private HOME every 50 ms.
        const std::string beats = w.work + "/beats";
        make_dirs(beats);
        const std::string loop = "while :; do echo beat >> " + beats + "/heartbeat-$0; echo planted > " +
                                 w.private_home + "/planted 2>/dev/null; sleep 0.05; done";
        // The wait is bounded (10 s): a run where the daemons cannot write
        // ends and fails the check below instead of hanging the test.
        const std::string script = "setsid sh -c '" + loop + "' " + mark + "-a </dev/null >/dev/null 2>&1 &\n" +
                                   "( sh -c '" + loop + "' " + mark + "-b </dev/null >/dev/null 2>&1 & ) \n" +
                                   "i=0; while { [ ! -s " + beats + "/heartbeat-" + mark + "-a ] || [ ! -s " + beats +
                                   "/heartbeat-" + mark + "-b ]; } && [ $i -lt 500 ]; do sleep 0.02; i=$((i+1)); "
                                   "done; [ $i -lt 500 ] && echo DAEMONS-RUNNING";
        auto r = run_confined(driver, w, script);
        INFO(r.spawn_error << r.out << r.err);
        REQUIRE(r.exit_code == 0);
        REQUIRE(has(r.out, "DAEMONS-RUNNING"));  // positive: they ran inside the run
        CHECK(host_processes_with(mark).empty());
        const size_t a = file_size(beats + "/heartbeat-" + mark + "-a");
        const size_t b = file_size(beats + "/heartbeat-" + mark + "-b");
        CHECK(a > 0);
        unlink((w.private_home + "/planted").c_str());
        std::this_thread::sleep_for(std::chrono::milliseconds(600));
        CHECK(file_size(beats + "/heartbeat-" + mark + "-a") == a);
        CHECK(file_size(beats + "/heartbeat-" + mark + "-b") == b);
        CHECK(access((w.private_home + "/planted").c_str(), F_OK) != 0);
        // The next run's private HOME (the plugin driver reuses the folder) holds nothing of run 1.
        auto next = run_confined(driver, w, "ls -a \"$HOME\"; echo LISTED");
        INFO(next.out << next.err);
        CHECK(has(next.out, "LISTED"));
        CHECK_FALSE(has(next.out, "planted"));
    }
}

// The init ends what the command left itself and says so before its own
// exit (child_leftovers.cpp, end_namespace): a loop that keeps starting
// processes as the command ends must not leave one behind.
TEST_CASE("processes still being started as the command ends are gone when the run returns",
          "[landlock][isolation][class6]") {
    require_landlock();
    FOR_EACH_DRIVER(driver) {
        World w;
        const std::string mark = unique_mark("oms-spawner");
        const std::string script = "( while :; do sh -c 'while :; do sleep 1; done' " + mark +
                                   " & done ) </dev/null >/dev/null 2>&1 &\n"
                                   "sleep 0.3; echo SPAWNING";
        auto r = run_confined(driver, w, script);
        INFO(r.spawn_error << r.out << r.err);
        REQUIRE(r.exit_code == 0);
        REQUIRE(has(r.out, "SPAWNING"));  // positive: the loop ran inside the run
        CHECK(host_processes_with(mark).empty());
    }
}

// oms returns before the init's own exit (child_leftovers.cpp), but reaps it
// before it exits itself: a caller that is a child subreaper (a service
// manager, an agent's runner) must not be left an init's zombie to reap.
TEST_CASE("oms leaves no process of the run for its caller to reap", "[landlock][isolation][class6]") {
    require_landlock();
    World w;
    REQUIRE(prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0);
    size_t handed = 0;
    for (int i = 0; i < 5; ++i) {
        auto r = run_in_oms(w, "exit 7");
        INFO(r.spawn_error << r.err);
        REQUIRE(r.exit_code == 7);  // positive: the run ran, with its status
        while (waitpid(-1, nullptr, WNOHANG | __WALL) > 0) ++handed;
    }
    prctl(PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0);
    CHECK(handed == 0);
}

TEST_CASE("host processes can be neither seen nor limited nor signalled", "[landlock][isolation][class5]") {
    require_landlock();
    HostVictim victim;
    REQUIRE(victim.alive());
    rlimit cpu_before{};
    REQUIRE(prlimit(victim.pid, RLIMIT_CPU, nullptr, &cpu_before) == 0);
    cpu_set_t affinity_before;
    REQUIRE(sched_getaffinity(victim.pid, sizeof affinity_before, &affinity_before) == 0);
    const int policy_before = sched_getscheduler(victim.pid);
    const std::string v = std::to_string(victim.pid);
    FOR_EACH_DRIVER(driver) {
        World w;
        // Markers are printed as X-""OK: ps shows the script, which must not match.
        const std::string script =
            "prlimit --pid " + v + " --cpu=1:1 && echo PRLIMIT-HOST-\"\"OK\n"
            "taskset -p 1 " + v + " && echo TASKSET-HOST-\"\"OK\n"
            "chrt -i -p 0 " + v + " && echo CHRT-HOST-\"\"OK\n"
            "kill -KILL " + v + " && echo KILL-HOST-\"\"OK\n"
            "[ -e /proc/" + v + " ] && echo PROC-HOST-\"\"VISIBLE\n"
            "echo PS-BEGIN; ps -e -o pid=,args=; echo PS-END\n"
            "sleep 30 & own=$!\n"
            "prlimit --pid $own --cpu=100:100 && echo PRLIMIT-OWN-\"\"OK\n"
            "taskset -p 1 $own >/dev/null && echo TASKSET-OWN-\"\"OK\n"
            "kill $own && echo KILL-OWN-\"\"OK\n"
            "exit 0";
        auto r = run_confined(driver, w, script);
        INFO(r.spawn_error << r.out << r.err);
        REQUIRE(r.exit_code == 0);
        // Positive controls: the same calls on the sandbox's own process work.
        CHECK(has(r.out, "PRLIMIT-OWN-OK"));
        CHECK(has(r.out, "TASKSET-OWN-OK"));
        CHECK(has(r.out, "KILL-OWN-OK"));
        CHECK_FALSE(has(r.out, "PRLIMIT-HOST-OK"));
        CHECK_FALSE(has(r.out, "TASKSET-HOST-OK"));
        CHECK_FALSE(has(r.out, "CHRT-HOST-OK"));
        CHECK_FALSE(has(r.out, "KILL-HOST-OK"));
        CHECK_FALSE(has(r.out, "PROC-HOST-VISIBLE"));
        const std::string ps = r.out.substr(r.out.find("PS-BEGIN"));
        CHECK_FALSE(has(ps, "4242.5"));   // the host's victim
        CHECK(has(ps, "ps -e -o pid"));   // positive: ps works and lists the sandbox
        CHECK(lines_starting(ps, "      1 ").size() == 1);  // the run's own init is pid 1
        // Host side: the victim is alive and unchanged.
        CHECK(victim.alive());
        rlimit cpu_after{};
        REQUIRE(prlimit(victim.pid, RLIMIT_CPU, nullptr, &cpu_after) == 0);
        CHECK(cpu_after.rlim_cur == cpu_before.rlim_cur);
        CHECK(cpu_after.rlim_max == cpu_before.rlim_max);
        cpu_set_t affinity_after;
        REQUIRE(sched_getaffinity(victim.pid, sizeof affinity_after, &affinity_after) == 0);
        CHECK(CPU_EQUAL(&affinity_before, &affinity_after));
        CHECK(sched_getscheduler(victim.pid) == policy_before);
    }
}

TEST_CASE("a keypair folder moved to /tmp in one run is not there for the next", "[landlock][isolation][class2]") {
    require_landlock();
    FOR_EACH_DRIVER(driver) {
        World w;
        const std::string secret = "STASHED-KEYPAIR-8e21";
        write_file(w.work + "/target/deploy/prog-keypair.json", secret);
        write_file(w.work + "/target2/deploy/prog-keypair.json", secret);
        const std::string stash = "/tmp/" + unique_mark("oms-stash");
        const std::string note = "/tmp/" + unique_mark("oms-note");
        // Run 1: the folders (not the masked file) move out of the worktree,
        // to the system /tmp and to the run's TMPDIR.
        auto first = run_with_system_temps(
            driver, w,
            "mv " + w.work + "/target " + stash + " 2>/dev/null; cat " + stash + "/deploy/prog-keypair.json\n"
            "mv " + w.work + "/target2 \"$TMPDIR/stash\" 2>/dev/null; cat \"$TMPDIR/stash/deploy/prog-keypair.json\"\n"
            "echo NOTE-TEXT > " + note + " && cat " + note + " && echo TMP-WRITABLE\n"
            "echo CARRIED > " + w.work + "/carried\n"
            "exit 0");
        INFO(first.spawn_error << first.out << first.err);
        REQUIRE(first.exit_code == 0);
        CHECK(has(first.out, "TMP-WRITABLE"));  // positive: /tmp is writable inside
        CHECK_FALSE(has(first.out, secret));
        // Run 2 looks where run 1 put them.
        auto second = run_with_system_temps(
            driver, w,
            "cat " + stash + "/deploy/prog-keypair.json " + note + " 2>&1\n"
            "cat \"$TMPDIR/stash/deploy/prog-keypair.json\" " + w.work + "/carried\n"
            "exit 0");
        INFO(second.out << second.err);
        REQUIRE(second.exit_code == 0);
        CHECK(has(second.out, "CARRIED"));  // positive: the worktree carries files between runs
        CHECK_FALSE(has(second.out, secret));
        CHECK_FALSE(has(second.out, "NOTE-TEXT"));
        // Host side: nothing reached the host's /tmp, the keypairs are intact.
        CHECK(access(stash.c_str(), F_OK) != 0);
        CHECK(access(note.c_str(), F_OK) != 0);
        CHECK(read_file(w.work + "/target/deploy/prog-keypair.json") == secret);
        CHECK(read_file(w.work + "/target2/deploy/prog-keypair.json") == secret);
    }
}
