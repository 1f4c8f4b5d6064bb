// oms verify under attack, through the real binary: the check judges a
// snapshot (a change made to the live worktree while it runs is not seen, a
// write to the snapshot fails and reaches nothing), it reaches the fresh
// Surfnet started inside its sandbox and no host port (a host listener on the
// very same port sees no connection), the Surfnet and a daemon it left are
// gone afterwards, results land in OMS_OUTPUT_DIR, and the exit status comes
// back. host-null refuses without --yes; docker and seatbelt plans render.
#include "host_echo_server.hpp"
#include "oms_env.hpp"
#include "process.hpp"
#include "temp_dir.hpp"

#include <catch2/catch.hpp>

#include <filesystem>

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <future>
#include <sstream>
#include <thread>

using namespace oms::test;

namespace {

std::string standin() {
    const char* path = std::getenv("OMS_VERIFY_STANDIN");
    REQUIRE(path != nullptr);
    return path;
}

std::string text_of(const std::string& path) {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

// Processes whose command line holds `mark` (the stand-in's unique reply).
std::vector<std::string> processes_with(const std::string& mark) {
    std::vector<std::string> found;
    DIR* proc = opendir("/proc");
    while (dirent* entry = proc ? readdir(proc) : nullptr) {
        std::string pid = entry->d_name;
        if (pid.find_first_not_of("0123456789") != std::string::npos) continue;
        std::string cmdline = text_of("/proc/" + pid + "/cmdline");
        for (char& c : cmdline)
            if (c == '\0') c = ' ';
        if (cmdline.find(mark) != std::string::npos && cmdline.find("serve") != std::string::npos)
            found.push_back(pid + ": " + cmdline);
    }
    if (proc) closedir(proc);
    return found;
}

// Until `path` exists, or `run` ended (the check never started).
bool wait_for(const std::string& path, const std::future<ProcessResult>& run, int seconds) {
    for (int i = 0; i < seconds * 20; ++i) {
        if (exists(path)) return true;
        if (run.wait_for(std::chrono::seconds(0)) == std::future_status::ready) return exists(path);
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return false;
}

ProcessResult git(const OmsEnv& env, const std::vector<std::string>& args) {
    std::vector<std::string> argv{"/usr/bin/git", "-c", "user.name=t", "-c", "user.email=t@t", "-C", env.worktree};
    argv.insert(argv.end(), args.begin(), args.end());
    ProcessOptions options;
    for (auto& [name, value] : env.env) options.env.push_back(name + "=" + value);
    return run_process(argv, options);
}

// A committed worktree: input.txt, a tracked link to a file outside, and an
// untracked file the snapshot must not hold.
void make_repository(const OmsEnv& env, const std::string& outside) {
    write_file(env.worktree + "/input.txt", "snapshot-v1\n");
    write_file(outside, "outside-secret\n");
    REQUIRE(symlink(outside.c_str(), (env.worktree + "/outside-link").c_str()) == 0);
    REQUIRE(git(env, {"init", "-q"}).exit_code == 0);
    REQUIRE(git(env, {"add", "input.txt", "outside-link"}).exit_code == 0);
    REQUIRE(git(env, {"commit", "-qm", "inputs"}).exit_code == 0);
    write_file(env.worktree + "/untracked.txt", "not-tracked\n");
}

// The check: records what it sees before and after the host changed the
// live worktree, tries to write the snapshot, asks the Surfnet and another
// host port, and exits 3.
std::string check_script(const std::string& standin_path, uint16_t port, uint16_t other_port) {
    const std::string s = "'" + standin_path + "'";
    return "O=\"$OMS_OUTPUT_DIR\"\n"
           "cat input.txt > \"$O/seen-before\"\n"
           "touch \"$O/ready\"\n"
           "n=0; while [ ! -e \"$O/go\" ] && [ $n -lt 400 ]; do sleep 0.05; n=$((n+1)); done\n"
           "cat input.txt > \"$O/seen-after\"\n"
           "ls -a > \"$O/listing\"\n"
           "pwd > \"$O/pwd\"\n"
           "if (echo tampered > input.txt) 2>/dev/null; then echo WROTE; else echo refused; fi > \"$O/write\"\n"
           "if (echo new > created.txt) 2>/dev/null; then echo WROTE; else echo refused; fi > \"$O/create\"\n"
           "if cat outside-link > /dev/null 2>&1; then echo READ; else echo absent; fi > \"$O/link\"\n"
           "echo \"$SURFNET_RPC_URL\" > \"$O/url\"\n" +
           s + " ask " + std::to_string(port) + " > \"$O/surfnet-reply\" 2>&1\n" + s + " ask " +
           std::to_string(other_port) + " > \"$O/other-reply\" 2>&1\n"
           "exit 3\n";
}

}  // namespace

TEST_CASE("oms verify on landlock: snapshot, own Surfnet only, results and exit status", "[verify]") {
    OmsEnv env;
    TempDir scratch("oms-verify-test");
    make_repository(env, scratch / "outside.txt");
    HostEchoServer host_on_surfnet_port;  // a host listener on the very port the Surfnet uses
    HostEchoServer other_host_port;
    host_on_surfnet_port.start();
    other_host_port.start();
    const uint16_t port = host_on_surfnet_port.port();
    const std::string mark = "fresh-standin-" + std::to_string(getpid()) + "-" + std::to_string(port);
    // The user's Surfnet port is that port: `oms run` would relay it to the
    // host; `oms verify` must not (its port comes from the same key).
    env.user_config("[verify]\nsurfnet_cmd = [\"" + standin() + "\", \"serve\", \"{port}\", \"" + mark +
                    "\", \"stubborn\"]\n[plugin.network]\nsurfnet_port = " + std::to_string(port) + "\n");
    const std::string output = scratch / "results";

    auto run = std::async(std::launch::async, [&] {
        return env.oms({"verify", "--sandbox", "landlock", "--output", output, "--", "/bin/sh", "-c",
                        check_script(standin(), port, other_host_port.port())});
    });
    // The host changes the live worktree while the check runs.
    const bool started = wait_for(output + "/ready", run, 60);
    write_file(env.worktree + "/input.txt", "changed-live\n");
    if (started) write_file(output + "/go", "");
    ProcessResult result = run.get();
    INFO("stdout: " << result.out << "\nstderr: " << result.err);
    REQUIRE(started);

    // The exit status comes back; results are in OMS_OUTPUT_DIR (positive
    // control for every write the check made there).
    CHECK(result.exit_code == 3);
    CHECK(result.err.find("results in " + output) != std::string::npos);
    CHECK(text_of(output + "/url") == "http://127.0.0.1:" + std::to_string(port) + "\n");

    // The snapshot, not the worktree: the later change is not seen, the
    // untracked file is not there, the link was not copied.
    CHECK(text_of(output + "/seen-before") == "snapshot-v1\n");
    CHECK(text_of(output + "/seen-after") == "snapshot-v1\n");
    CHECK(text_of(env.worktree + "/input.txt") == "changed-live\n");
    CHECK(text_of(output + "/listing").find("input.txt") != std::string::npos);
    CHECK(text_of(output + "/listing").find("untracked.txt") == std::string::npos);
    CHECK(text_of(output + "/link") == "absent\n");
    CHECK(result.err.find("not in the snapshot: outside-link: a symbolic link") != std::string::npos);
    CHECK(text_of(output + "/pwd").find(env.worktree) == std::string::npos);
    // Writes to the snapshot fail, and nothing reached the host worktree.
    CHECK(text_of(output + "/write") == "refused\n");
    CHECK(text_of(output + "/create") == "refused\n");
    CHECK_FALSE(exists(env.worktree + "/created.txt"));

    // Its own Surfnet answers (positive); the host's listener on the same
    // port and another host port saw no connection at all (negative).
    CHECK(text_of(output + "/surfnet-reply").find(mark) != std::string::npos);
    CHECK(host_on_surfnet_port.accepted() == 0);
    CHECK(text_of(output + "/other-reply").find("connect-failed") != std::string::npos);
    CHECK(other_host_port.accepted() == 0);
    CHECK(text_of(output + "/surfnet.log").find("cannot listen") == std::string::npos);

    // The Surfnet (which ignores SIGTERM) and the daemon it left are gone.
    CHECK(processes_with(mark).empty());
}

TEST_CASE("oms verify: the Surfnet that never comes up stops the check from running", "[verify]") {
    OmsEnv env;
    TempDir scratch("oms-verify-test");
    make_repository(env, scratch / "outside.txt");
    env.user_config("[verify]\nsurfnet_cmd = [\"/bin/false\"]\nsurfnet_port = 18977\nsurfnet_wait_ms = 2000\n");
    const std::string output = scratch / "results";
    ProcessResult result = env.oms({"verify", "--sandbox", "landlock", "--output", output, "--", "/bin/sh", "-c",
                                    "touch \"$OMS_OUTPUT_DIR/ran\""});
    INFO("stderr: " << result.err);
    CHECK(result.exit_code == 69);
    CHECK(result.err.find("the Surfnet (/bin/false) did not come up") != std::string::npos);
    CHECK_FALSE(exists(output + "/ran"));
    CHECK(exists(output));  // positive control: the results folder was made
}

TEST_CASE("oms verify on host-null: refused without --yes, honest with it", "[verify]") {
    OmsEnv env;
    TempDir scratch("oms-verify-test");
    make_repository(env, scratch / "outside.txt");
    env.user_config("[verify]\nsurfnet_cmd = [\"" + standin() + "\", \"serve\", \"{port}\", \"hostnull\"]\n");
    HostEchoServer reserved;  // only for a free port number
    const std::string port = std::to_string(reserved.port());
    const std::string marker = scratch / "ran";
    const std::vector<std::string> check{"--", "/bin/sh", "-c", "touch '" + marker + "'; exit 3"};
    std::vector<std::string> args{"verify", "--sandbox", "host-null", "--surfnet-port", port, "--output",
                                  scratch / "results"};
    args.insert(args.end(), check.begin(), check.end());
    ProcessResult refused = env.oms(args);
    INFO("stderr: " << refused.err);
    CHECK(refused.exit_code == 77);
    CHECK(refused.err.find("OMS host mode has NO sandbox here") != std::string::npos);
    CHECK_FALSE(exists(marker));

    args.insert(args.begin() + 1, "--yes");
    ProcessResult approved = env.oms(args);
    INFO("stderr: " << approved.err);
    CHECK(approved.exit_code == 3);
    CHECK(exists(marker));  // positive control: with --yes the same check runs
    CHECK(approved.err.find("OMS host mode has NO sandbox here") != std::string::npos);
}

TEST_CASE("oms verify: docker and seatbelt plans keep the Surfnet port only", "[verify]") {
    OmsEnv env;
    TempDir scratch("oms-verify-test");
    make_repository(env, scratch / "outside.txt");
    env.user_config("[verify]\nsurfnet_cmd = [\"" + standin() + "\", \"serve\", \"{port}\", \"m\"]\n"
                    "surfnet_port = 18976\n");
    // Docker runs (tests/integration/docker/docker_verify_test.cpp, which
    // also renders its policy); its network plan relays no host port.
    ProcessResult docker = env.oms({"verify", "--sandbox", "docker", "--plan", "--", "/bin/true"});
    INFO("stdout: " << docker.out << "\nstderr: " << docker.err);
    CHECK(docker.out.find("network: the container's own network (--network none)") != std::string::npos);
    CHECK(docker.out.find("no host port is relayed") != std::string::npos);

    ProcessResult seatbelt = env.oms({"verify", "--sandbox", "seatbelt", "--plan", "--", "/bin/true"});
    INFO("stdout: " << seatbelt.out << "\nstderr: " << seatbelt.err);
    CHECK(seatbelt.exit_code == 0);
    CHECK(seatbelt.out.find("(remote ip \"localhost:18976\")") != std::string::npos);
    CHECK(seatbelt.out.find("(local ip \"localhost:18976\")") != std::string::npos);
    CHECK(seatbelt.out.find("localhost:8899") == std::string::npos);
    CHECK(seatbelt.out.find("snapshot:") != std::string::npos);

    ProcessResult landlock = env.oms({"verify", "--sandbox", "landlock", "--plan", "--", "/bin/true"});
    INFO("stdout: " << landlock.out);
    CHECK(landlock.exit_code == 0);
    CHECK(landlock.out.find("no host port is relayed") != std::string::npos);
    CHECK(landlock.out.find("net-connect-loopback") == std::string::npos);
    CHECK(landlock.out.find("write-deny           " ) != std::string::npos);

    ProcessResult doctor = env.oms({"doctor"});
    INFO("doctor: " << doctor.out);
    CHECK(doctor.out.find("verify: private network namespace") != std::string::npos);
    CHECK(doctor.out.find("no host port is relayed") != std::string::npos);
}

TEST_CASE("oms verify: configured inputs, names leaving the worktree, a worktree may not choose the Surfnet",
          "[verify]") {
    OmsEnv env;
    TempDir scratch("oms-verify-test");
    make_repository(env, scratch / "outside.txt");
    env.user_config("[verify]\nsurfnet_cmd = [\"" + standin() + "\", \"serve\", \"{port}\", \"m\"]\n");
    // A FIFO would block a plain open: it is named and left out, unopened.
    REQUIRE(mkfifo((env.worktree + "/pipe").c_str(), 0600) == 0);
    ProcessResult listed = env.oms({"verify", "--sandbox", "landlock", "--plan", "--inputs",
                                    "input.txt,untracked.txt,pipe", "--", "/bin/true"},
                                   ProcessOptions{{}, std::nullopt, "", 30});
    INFO("stdout: " << listed.out << "\nstderr: " << listed.err);
    CHECK(listed.exit_code == 0);
    CHECK(listed.out.find("(configured list)") != std::string::npos);
    CHECK(listed.out.find("2 files") != std::string::npos);
    CHECK(listed.err.find("not in the snapshot: pipe: not a regular file") != std::string::npos);

    // A pinned file joins the snapshot even when git does not track it, and
    // its write deny names the copy.
    env.worktree_config("[sandbox]\npinned = [\"untracked.txt\"]\n");
    ProcessResult pinned = env.oms({"verify", "--sandbox", "landlock", "--plan", "--", "/bin/true"});
    INFO("stdout: " << pinned.out << "\nstderr: " << pinned.err);
    CHECK(pinned.exit_code == 0);
    CHECK(pinned.out.find("2 files") != std::string::npos);
    CHECK(pinned.out.find("/untracked.txt") != std::string::npos);
    CHECK(pinned.out.find(env.worktree + "/untracked.txt") == std::string::npos);

    ProcessResult escape = env.oms({"verify", "--sandbox", "landlock", "--plan", "--inputs", "../x", "--", "/bin/true"});
    CHECK(escape.exit_code == 2);
    CHECK(escape.err.find("must be a path relative to the worktree") != std::string::npos);

    // Results inside the worktree would be hidden from the check: refused
    // before anything is made.
    ProcessResult inside = env.oms({"verify", "--sandbox", "landlock", "--output", env.worktree + "/results", "--",
                                    "/bin/true"});
    CHECK(inside.exit_code == 2);
    CHECK(inside.err.find("lies inside the worktree") != std::string::npos);
    CHECK_FALSE(exists(env.worktree + "/results"));

    const std::string marker = scratch / "ran";
    env.worktree_config("[verify]\nsurfnet_cmd = [\"/bin/sh\", \"-c\", \"touch '" + marker + "'\"]\n");
    ProcessResult widened = env.oms({"verify", "--sandbox", "landlock", "--", "/bin/true"});
    INFO("stderr: " << widened.err);
    CHECK(widened.exit_code == 78);
    CHECK(widened.err.find("verify.surfnet_cmd") != std::string::npos);
    CHECK(widened.err.find("refused") != std::string::npos);
    CHECK_FALSE(exists(marker));
}

TEST_CASE("oms verify: a live worktree outside HOME is hidden from the check", "[verify]") {
    // /dev/shm: readable inside the sandbox (not HOME, not a private temp).
    char pattern[] = "/dev/shm/oms-verify-live-XXXXXX";
    REQUIRE(mkdtemp(pattern) != nullptr);
    const std::string live = pattern;
    OmsEnv env;
    env.worktree = live;
    TempDir scratch("oms-verify-test");
    make_repository(env, scratch / "outside.txt");
    env.user_config("[verify]\nsurfnet_cmd = [\"" + standin() + "\", \"serve\", \"{port}\", \"m\"]\n");
    HostEchoServer reserved;  // only for a free port number
    const std::string output = scratch / "results";
    ProcessResult result = env.oms({"verify", "--sandbox", "landlock", "--surfnet-port", std::to_string(reserved.port()),
                                    "--output", output, "--", "/bin/sh", "-c",
                                    "cat input.txt > \"$OMS_OUTPUT_DIR/snapshot\"; "
                                    "cat '" + live + "/input.txt' > \"$OMS_OUTPUT_DIR/live\" 2>/dev/null; exit 0"});
    INFO("stderr: " << result.err);
    CHECK(result.exit_code == 0);
    CHECK(text_of(output + "/snapshot") == "snapshot-v1\n");  // positive control
    CHECK(text_of(output + "/live").empty());
    run_process({"/bin/rm", "-rf", live});
}

TEST_CASE("oms verify: an oms installed under the read-denied HOME can still launch the check", "[verify]") {
    OmsEnv env;
    TempDir scratch("oms-verify-test");
    make_repository(env, scratch / "outside.txt");
    env.user_config("[verify]\nsurfnet_cmd = [\"" + standin() + "\", \"serve\", \"{port}\", \"m\"]\n");
    // The build's layout (bin/, lib/oms/plugins, share/oms) copied under HOME.
    const std::string build = std::string(std::getenv("OMS_BUILD_DIR"));
    const std::string prefix = env.home + "/.local/oms";
    make_dirs(prefix + "/bin");
    make_dirs(prefix + "/lib/oms");
    make_dirs(prefix + "/share");
    REQUIRE(run_process({"/bin/cp", oms_binary(), prefix + "/bin/oms"}).exit_code == 0);
    REQUIRE(run_process({"/bin/cp", "-r", build + "/lib/oms/plugins", prefix + "/lib/oms/"}).exit_code == 0);
    REQUIRE(run_process({"/bin/cp", "-r", build + "/share/oms", prefix + "/share/"}).exit_code == 0);
    HostEchoServer reserved;  // only for a free port number
    ProcessOptions options;
    for (auto& [name, value] : env.env) options.env.push_back(name + "=" + value);
    options.cwd = env.worktree;
    ProcessResult result = run_process({prefix + "/bin/oms", "verify", "--sandbox", "landlock", "--surfnet-port",
                                        std::to_string(reserved.port()), "--output", scratch / "results", "--",
                                        "/bin/sh", "-c", "cat input.txt; exit 3"},
                                       options);
    INFO("stderr: " << result.err);
    CHECK(result.exit_code == 3);
    CHECK(result.out == "snapshot-v1\n");
}

TEST_CASE("oms verify: a worktree that is a repository's subfolder snapshots its own tracked files", "[verify]") {
    OmsEnv env;
    TempDir scratch("oms-verify-test");
    write_file(env.worktree + "/sub/inner.txt", "inner\n");
    make_repository(env, scratch / "outside.txt");
    REQUIRE(git(env, {"add", "sub/inner.txt"}).exit_code == 0);
    REQUIRE(git(env, {"commit", "-qm", "sub"}).exit_code == 0);
    env.user_config("[verify]\nsurfnet_cmd = [\"" + standin() + "\", \"serve\", \"{port}\", \"m\"]\n");
    ProcessResult plan = env.oms({"verify", "--sandbox", "landlock", "--plan", "--worktree", env.worktree + "/sub",
                                  "--", "/bin/true"});
    INFO("stdout: " << plan.out << "\nstderr: " << plan.err);
    CHECK(plan.exit_code == 0);
    CHECK(plan.out.find("1 files") != std::string::npos);
    CHECK(plan.err.find("not in the snapshot") == std::string::npos);
}

namespace {

// A repository a sandboxed command prepares (its .git did not exist when the
// run started, so the run may write it): a sparse index whose folder's tree
// object is gone, in a partial clone whose promisor remote is reached
// through core.sshCommand. Any git that lists the files fetches the missing
// tree and so runs that command, on the host when the host runs git.
std::string hostile_repository_script(const std::string& marker) {
    return "set -e\n"
           "g() { git -c user.name=t -c user.email=t@t -c init.defaultBranch=main \"$@\"; }\n"
           "g init -q\n"
           "mkdir d; echo inside > d/f; echo tracked-top > top\n"
           "g add .; g commit -qm c\n"
           "g sparse-checkout init --cone --sparse-index\n"
           "g sparse-checkout set other\n"
           "t=$(g rev-parse HEAD:d)\n"
           "rm -f .git/objects/$(echo $t | cut -c1-2)/$(echo $t | cut -c3-)\n"
           "g config core.repositoryformatversion 1\n"
           "g config extensions.partialClone origin\n"
           "g config remote.origin.url ssh://attacker.invalid/x\n"
           "g config remote.origin.promisor true\n"
           "g config core.sshCommand \"touch '" + marker + "'; false\"\n";
}

// git run as oms verify ran it before it read the index itself.
void list_with_host_git(const OmsEnv& env) {
    ProcessOptions options;
    options.env = {"PATH=/usr/bin:/bin", "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null",
                   "GIT_TERMINAL_PROMPT=0", "GIT_OPTIONAL_LOCKS=0", "LC_ALL=C", "HOME=/nonexistent"};
    run_process({"/usr/bin/git", "-c", "core.fsmonitor=false", "-c", "core.untrackedCache=false", "-c",
                 "safe.directory=" + env.worktree, "-C", env.worktree, "ls-files", "-z", "--cached"},
                options);
}

}  // namespace

TEST_CASE("oms verify runs no program on a repository a command wrote", "[verify]") {
    OmsEnv env;
    TempDir scratch("oms-verify-test");
    const std::string marker = scratch / "ran-on-the-host";
    ProcessResult prepared = env.oms({"run", "--sandbox", "landlock", "--", "/bin/sh", "-c",
                                      hostile_repository_script(marker)});
    INFO("prepare: " << prepared.err);
    REQUIRE(prepared.exit_code == 0);
    // The repository is what the test says: host git listing it runs the
    // command's program (so a pass below is not a harmless repository).
    list_with_host_git(env);
    REQUIRE(exists(marker));
    REQUIRE(unlink(marker.c_str()) == 0);
    // oms verify would refuse this repository outright (it did not exist when
    // oms first ran a command here: next test); what a user who says "I made
    // it" does, deleting the record, leaves the index reader to face it.
    std::filesystem::remove_all(env.state_home + "/oms/repositories");

    env.user_config("[verify]\nsurfnet_cmd = [\"" + standin() + "\", \"serve\", \"{port}\", \"m\"]\n");
    HostEchoServer reserved;  // only for a free port number
    const std::string output = scratch / "results";
    ProcessResult result = env.oms({"verify", "--sandbox", "landlock", "--surfnet-port", std::to_string(reserved.port()),
                                    "--output", output, "--", "/bin/sh", "-c",
                                    "cat top > \"$OMS_OUTPUT_DIR/top\"; ls -a > \"$OMS_OUTPUT_DIR/listing\""});
    INFO("stderr: " << result.err);
    CHECK(result.exit_code == 0);
    CHECK_FALSE(exists(marker));
    // Positive control: the tracked file is in the snapshot; the folder the
    // sparse index leaves out is named, not fetched.
    CHECK(text_of(output + "/top") == "tracked-top\n");
    CHECK(text_of(output + "/listing").find(".git") == std::string::npos);
    CHECK(result.err.find("not in the snapshot: d/: a folder left out of the sparse checkout") != std::string::npos);
}

TEST_CASE("oms verify takes no list from a repository made after oms first ran a command there", "[verify]") {
    OmsEnv env;
    TempDir scratch("oms-verify-test");
    write_file(env.worktree + "/chosen.txt", "chosen\n");
    write_file(env.worktree + "/left-out.txt", "left out\n");
    // A command in a worktree with no repository makes one whose index names
    // only the file it chose.
    ProcessResult made = env.oms({"run", "--sandbox", "landlock", "--", "/bin/sh", "-c",
                                  "git init -q && git add chosen.txt"});
    INFO("made: " << made.err);
    REQUIRE(made.exit_code == 0);
    REQUIRE(exists(env.worktree + "/.git/index"));
    env.user_config("[verify]\nsurfnet_cmd = [\"" + standin() + "\", \"serve\", \"{port}\", \"m\"]\n");
    const std::string output = scratch / "results";
    ProcessResult refused = env.oms({"verify", "--sandbox", "landlock", "--output", output, "--", "/bin/sh", "-c",
                                     "ls > \"$OMS_OUTPUT_DIR/listing\""});
    INFO("stderr: " << refused.err);
    CHECK(refused.exit_code == 77);
    CHECK(refused.err.find("did not exist when oms first ran a command there") != std::string::npos);
    CHECK(refused.err.find("Nothing ran") != std::string::npos);
    CHECK_FALSE(exists(output + "/listing"));
    // Naming the inputs instead works.
    ProcessResult named = env.oms({"verify", "--sandbox", "landlock", "--inputs", "chosen.txt", "--inputs",
                                   "left-out.txt", "--plan", "--", "/bin/true"});
    INFO("named: " << named.err);
    CHECK(named.exit_code == 0);

    // Positive control: a repository you made before any run is listed as before.
    OmsEnv mine;
    make_repository(mine, scratch / "outside.txt");
    REQUIRE(mine.oms({"run", "--sandbox", "landlock", "--", "/bin/true"}).exit_code == 0);
    mine.user_config("[verify]\nsurfnet_cmd = [\"" + standin() + "\", \"serve\", \"{port}\", \"m\"]\n");
    ProcessResult plan = mine.oms({"verify", "--sandbox", "landlock", "--plan", "--", "/bin/true"});
    INFO("plan: " << plan.out << plan.err);
    CHECK(plan.exit_code == 0);
    CHECK(plan.out.find("the files tracked in " + mine.worktree + "/.git/index") != std::string::npos);
    CHECK(plan.out.find("1 files") != std::string::npos);  // input.txt; the tracked link is skipped
}

TEST_CASE("oms verify: a tracked file that is a second name of a keypair is not copied under that name", "[verify]") {
    OmsEnv env;
    TempDir scratch("oms-verify-test");
    make_repository(env, scratch / "outside.txt");
    write_file(env.worktree + "/notes.txt", "notes\n");
    REQUIRE(git(env, {"add", "notes.txt"}).exit_code == 0);
    REQUIRE(git(env, {"commit", "-qm", "notes"}).exit_code == 0);
    // Run 1: the tracked notes.txt becomes a second name of an empty file at
    // the program keypair's usual place.
    ProcessResult planted = env.oms({"run", "--sandbox", "landlock", "--", "/bin/sh", "-c",
                                     "mkdir -p target/deploy && rm notes.txt && : > target/deploy/prog-keypair.json && "
                                     "ln target/deploy/prog-keypair.json notes.txt"});
    INFO("plant: " << planted.err);
    REQUIRE(planted.exit_code == 0);
    // The user restores the program's key the usual way: cp writes into the
    // existing file, so notes.txt holds it too.
    const std::string key = "[7,7,7,7,7,7,7,7,7,7,7,7,7,7,7,7,7,7,7,7,7,7,7,7,7,7,7,7,7,7,7,7,"
                            "9,9,9,9,9,9,9,9,9,9,9,9,9,9,9,9,9,9,9,9,9,9,9,9,9,9,9,9,9,9,9,99]";
    {
        std::ofstream restore(env.worktree + "/target/deploy/prog-keypair.json", std::ios::trunc);
        restore << key;
    }
    REQUIRE(text_of(env.worktree + "/notes.txt") == key);

    env.user_config("[verify]\nsurfnet_cmd = [\"" + standin() + "\", \"serve\", \"{port}\", \"m\"]\n");
    HostEchoServer reserved;  // only for a free port number
    const std::string output = scratch / "results";
    ProcessResult result = env.oms({"verify", "--sandbox", "landlock", "--surfnet-port", std::to_string(reserved.port()),
                                    "--output", output, "--", "/bin/sh", "-c",
                                    "O=\"$OMS_OUTPUT_DIR\"; cat notes.txt > \"$O/notes\" 2>&1; "
                                    "cat input.txt > \"$O/input\"; echo done > \"$O/done\""});
    INFO("stdout: " << result.out << "\nstderr: " << result.err);
    CHECK(result.exit_code == 0);
    REQUIRE(text_of(output + "/done") == "done\n");
    CHECK(text_of(output + "/notes").find("9,9,9") == std::string::npos);
    CHECK(result.err.find("not in the snapshot: notes.txt: a file with 2 names (hard links)") != std::string::npos);
    // Positive control: a file with one name is copied as before.
    CHECK(text_of(output + "/input") == "snapshot-v1\n");
}

TEST_CASE("oms verify: a keypair name that is a link to a harmless file or a folder stops it", "[verify]") {
    OmsEnv env;
    TempDir scratch("oms-verify-test");
    make_repository(env, scratch / "outside.txt");
    write_file(env.worktree + "/notes.txt", "notes\n");
    write_file(env.worktree + "/src/lib.rs", "// lib\n");
    REQUIRE(git(env, {"add", "notes.txt", "src/lib.rs"}).exit_code == 0);
    REQUIRE(git(env, {"commit", "-qm", "notes"}).exit_code == 0);
    env.user_config("[verify]\nsurfnet_cmd = [\"" + standin() + "\", \"serve\", \"{port}\", \"m\"]\n");
    HostEchoServer reserved;  // only for a free port number
    const std::string port = std::to_string(reserved.port());
    const std::string key = "[5,5,5,SECRET-VERIFY-LINK]";
    const auto verify = [&](const std::vector<std::string>& extra, const std::string& output) {
        std::vector<std::string> args{"verify", "--sandbox", "landlock", "--surfnet-port", port, "--output", output};
        args.insert(args.end(), extra.begin(), extra.end());
        for (const char* word : {"--", "/bin/sh", "-c",
                                 "O=\"$OMS_OUTPUT_DIR\"; cat notes.txt src/*.json > \"$O/seen\" 2>&1; "
                                 "cat input.txt > \"$O/input\""})
            args.push_back(word);
        return env.oms(args);
    };

    SECTION("a link to a tracked file") {
        ProcessResult planted = env.oms({"run", "--sandbox", "landlock", "--", "/bin/sh", "-c",
                                         "mkdir -p target/deploy && ln -s ../../notes.txt target/deploy/prog-keypair.json"});
        REQUIRE(planted.exit_code == 0);
        {
            std::ofstream restore(env.worktree + "/target/deploy/prog-keypair.json", std::ios::trunc);
            restore << key;  // the user's cp follows the link
        }
        REQUIRE(text_of(env.worktree + "/notes.txt") == key);
        const std::string output = scratch / "results-file";
        ProcessResult result = verify({}, output);
        INFO("stderr: " << result.err);
        CHECK(result.exit_code == 77);
        CHECK(result.err.find(env.worktree + "/target/deploy/prog-keypair.json (a link to ") != std::string::npos);
        CHECK(result.err.find("Nothing ran") != std::string::npos);
        CHECK(text_of(output + "/seen").find("SECRET-VERIFY-LINK") == std::string::npos);
        CHECK_FALSE(exists(output + "/input"));
        // Positive control: with the key at its own name, verify runs.
        REQUIRE(unlink((env.worktree + "/target/deploy/prog-keypair.json").c_str()) == 0);
        write_file(env.worktree + "/notes.txt", "notes\n");
        write_file(env.worktree + "/target/deploy/prog-keypair.json", key);
        const std::string again = scratch / "results-again";
        ProcessResult ok = verify({}, again);
        INFO("stderr: " << ok.err);
        CHECK(ok.exit_code == 0);
        CHECK(text_of(again + "/input") == "snapshot-v1\n");
    }
    SECTION("a link to a folder named in --inputs") {
        ProcessResult planted = env.oms({"run", "--sandbox", "landlock", "--", "/bin/sh", "-c",
                                         "mkdir -p target/deploy && ln -s ../../src target/deploy/prog-keypair.json"});
        REQUIRE(planted.exit_code == 0);
        write_file(env.worktree + "/src/saved.json", key);  // cp saved.json target/deploy/prog-keypair.json
        const std::string output = scratch / "results-folder";
        ProcessResult result = verify({"--inputs", "src,input.txt,notes.txt"}, output);
        INFO("stderr: " << result.err);
        CHECK(result.exit_code == 77);
        CHECK(result.err.find(env.worktree + "/target/deploy/prog-keypair.json (a link to the folder ") !=
              std::string::npos);
        CHECK(text_of(output + "/seen").find("SECRET-VERIFY-LINK") == std::string::npos);
    }
    SECTION("a link in a nested .git to a tracked file") {
        ProcessResult planted = env.oms({"run", "--sandbox", "landlock", "--", "/bin/sh", "-c",
                                         "mkdir -p x/.git/deploy && ln -s ../../../notes.txt x/.git/deploy/prog-keypair.json"});
        INFO("plant: " << planted.err);
        REQUIRE(planted.exit_code == 0);
        {
            std::ofstream restore(env.worktree + "/x/.git/deploy/prog-keypair.json", std::ios::trunc);
            restore << key;
        }
        REQUIRE(text_of(env.worktree + "/notes.txt") == key);
        const std::string output = scratch / "results-nested";
        ProcessResult result = verify({}, output);
        INFO("stderr: " << result.err);
        CHECK(result.exit_code == 77);
        CHECK(result.err.find(env.worktree + "/x/.git/deploy/prog-keypair.json (a link to ") != std::string::npos);
        CHECK(text_of(output + "/seen").find("SECRET-VERIFY-LINK") == std::string::npos);
    }
    SECTION("a folder link to a writable folder outside the worktree and HOME") {
        // Outside /tmp (the check's own) and HOME: the test's build folder.
        const std::string shelf =
            (std::filesystem::current_path() / ("verify-shelf-" + std::to_string(getpid()))).string();
        struct Removed {
            std::string path;
            ~Removed() { std::filesystem::remove_all(path); }
        } removed{shelf};
        write_file(shelf + "/readme.txt", "shelf\n");
        ProcessResult planted = env.oms({"run", "--sandbox", "landlock", "--", "/bin/sh", "-c",
                                         "mkdir -p target && ln -s '" + shelf + "' target/deploy"});
        INFO("plant: " << planted.err);
        REQUIRE(planted.exit_code == 0);
        write_file(env.worktree + "/target/deploy/prog-keypair.json", key);  // lands in the shelf
        const std::string output = scratch / "results-shelf";
        ProcessResult result = verify({}, output);
        INFO("stderr: " << result.err);
        CHECK(result.exit_code == 77);
        CHECK(result.err.find(env.worktree + "/target/deploy (a link to the folder ") != std::string::npos);
        CHECK(result.err.find("outside the worktree") != std::string::npos);
        CHECK_FALSE(exists(output + "/input"));
    }
}

TEST_CASE("oms verify: a snapshot past [verify] max_snapshot_bytes stops before the check runs", "[verify]") {
    OmsEnv env;
    TempDir scratch("oms-verify-test");
    make_repository(env, scratch / "outside.txt");  // input.txt holds 12 bytes
    const std::string standin_line = "[verify]\nsurfnet_cmd = [\"" + standin() + "\", \"serve\", \"{port}\", \"m\"]\n";
    // A tracked file a command made huge (sparse: no disk used here).
    REQUIRE(truncate((env.worktree + "/input.txt").c_str(), 64 << 20) == 0);
    env.user_config(standin_line + "max_snapshot_bytes = 1048576\n");
    const std::string marker = scratch / "ran";
    ProcessResult big = env.oms({"verify", "--sandbox", "landlock", "--", "/bin/sh", "-c", "touch '" + marker + "'"});
    INFO("stderr: " << big.err);
    CHECK(big.exit_code == 69);
    CHECK(big.err.find("the snapshot would hold more than 1048576 bytes at input.txt") != std::string::npos);
    CHECK_FALSE(exists(marker));
    // Positive control: under the limit the plan is made.
    REQUIRE(truncate((env.worktree + "/input.txt").c_str(), 12) == 0);
    ProcessResult small = env.oms({"verify", "--sandbox", "landlock", "--plan", "--", "/bin/true"});
    INFO("stderr: " << small.err);
    CHECK(small.exit_code == 0);
    env.user_config(standin_line + "max_snapshot_bytes = 0\n");
    ProcessResult zero = env.oms({"verify", "--sandbox", "landlock", "--plan", "--", "/bin/true"});
    CHECK(zero.exit_code == 78);
    CHECK(zero.err.find("verify.max_snapshot_bytes") != std::string::npos);
}

namespace {

// The "network:" line of a plan.
std::string network_line(const std::string& plan) {
    const size_t at = plan.find("\nnetwork: ");
    if (at == std::string::npos) return "";
    return plan.substr(at + 1, plan.find('\n', at + 1) - at - 1);
}

}  // namespace

TEST_CASE("oms verify: a third party's backend with the verify plan gets the same plan and run", "[verify]") {
    OmsEnv env;
    env.env["OMS_PLUGIN_PATH"] = OMS_RENAMED_BACKEND_DIR;
    TempDir scratch("oms-verify-test");
    make_repository(env, scratch / "outside.txt");
    HostEchoServer host_on_surfnet_port;
    host_on_surfnet_port.start();
    const uint16_t port = host_on_surfnet_port.port();
    const std::string mark = "renamed-standin-" + std::to_string(getpid()) + "-" + std::to_string(port);
    env.user_config("[verify]\nsurfnet_cmd = [\"" + standin() + "\", \"serve\", \"{port}\", \"" + mark +
                    "\"]\nsurfnet_port = " + std::to_string(port) + "\n");

    ProcessResult landlock = env.oms({"verify", "--sandbox", "landlock", "--plan", "--", "/bin/true"});
    ProcessResult renamed = env.oms({"verify", "--sandbox", "acme-box", "--plan", "--", "/bin/true"});
    INFO("landlock: " << landlock.out << landlock.err << "\nacme-box: " << renamed.out << renamed.err);
    REQUIRE(landlock.exit_code == 0);
    REQUIRE(renamed.exit_code == 0);
    CHECK(network_line(landlock.out).find("private network namespace") != std::string::npos);
    CHECK(network_line(renamed.out) == network_line(landlock.out));

    // And it runs like landlock: its own Surfnet answers, the host's
    // listener on the same port sees nothing, the status comes back.
    const std::string output = scratch / "results";
    ProcessResult run = env.oms({"verify", "--sandbox", "acme-box", "--output", output, "--", "/bin/sh", "-c",
                                 "'" + standin() + "' ask " + std::to_string(port) +
                                     " > \"$OMS_OUTPUT_DIR/reply\" 2>&1; exit 4"});
    INFO("run: " << run.out << run.err);
    CHECK(run.exit_code == 4);
    CHECK(text_of(output + "/reply").find(mark) != std::string::npos);
    CHECK(host_on_surfnet_port.accepted() == 0);
}

TEST_CASE("oms verify: a confining backend without a verify plan is refused before anything runs", "[verify]") {
    OmsEnv env;
    env.env["OMS_PLUGIN_PATH"] = OMS_NO_VERIFY_PLAN_DIR;
    TempDir scratch("oms-verify-test");
    make_repository(env, scratch / "outside.txt");
    env.user_config("[verify]\nsurfnet_cmd = [\"" + standin() + "\", \"serve\", \"{port}\", \"m\"]\n");
    const std::string marker = scratch / "ran";
    for (bool plan : {true, false}) {
        std::vector<std::string> args{"verify", "--sandbox", "example-bwrap", "--output", scratch / "results"};
        if (plan) args.push_back("--plan");
        args.insert(args.end(), {"--", "/bin/sh", "-c", "touch '" + marker + "'"});
        ProcessResult refused = env.oms(args);
        INFO("plan " << plan << ": " << refused.out << refused.err);
        CHECK(refused.exit_code == 69);
        CHECK(refused.err.find("the backend 'example-bwrap' declares no verify plan (oms.verify-plan/1)") !=
              std::string::npos);
        CHECK_FALSE(exists(marker));
        CHECK_FALSE(exists(scratch / "results"));
    }
    // Positive control: the same plugin folder and check under landlock run.
    ProcessResult ran = env.oms({"verify", "--sandbox", "landlock", "--output", scratch / "results", "--",
                                 "/bin/sh", "-c", "touch \"$OMS_OUTPUT_DIR/ran\""});
    INFO("landlock: " << ran.out << ran.err);
    CHECK(ran.exit_code == 0);
    CHECK(exists(scratch / "results/ran"));
}
