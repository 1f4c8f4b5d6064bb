// `oms run` with host-null: the scrubbed environment, the private HOME, exit
// statuses, signals, approval and the one-time warning.
#include "background.hpp"

#include <pwd.h>
#include <signal.h>
#include <errno.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <algorithm>
#include <filesystem>
#include <map>
#include <sstream>
#include <thread>

using namespace oms::test;

namespace {

std::vector<std::string> lines(const std::string& text) {
    std::vector<std::string> out;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) out.push_back(line);
    return out;
}

const std::vector<std::string> kAllowlist{"PATH", "HOME", "CARGO_HOME", "RUSTUP_HOME", "LANG", "LC_ALL",
                                          "LC_CTYPE", "LC_MESSAGES", "TMPDIR", "SHELL", "TERM",
                                          "SOLANA_RPC_URL", "SURFNET_RPC_URL", "OMS_OUTPUT_DIR",
                                          // set by oms from the uid (env-allowlist's user_names)
                                          "USER", "LOGNAME"};

// The password database's name for the uid the test (and so oms) runs as.
std::string own_account_name() {
    const passwd* entry = getpwuid(getuid());
    return entry ? entry->pw_name : "";
}

bool wait_for_file(const std::string& path) {
    // Up to 20 s: a sanitized oms on a loaded machine is slow to start.
    for (int i = 0; i < 1000 && !exists(path); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(20));
    std::this_thread::sleep_for(std::chrono::milliseconds(50));  // let the writer finish the line
    return exists(path);
}

std::string first_line(const std::string& path) {
    std::string text = read_file(path);
    return text.substr(0, text.find('\n'));
}

}  // namespace

TEST_CASE("host-null: only allowlisted variables, a private HOME that is gone afterwards, writes land") {
    OmsEnv env;
    env.env["AWS_SECRET_ACCESS_KEY"] = "aws-secret-value";
    env.env["OPENAI_API_KEY"] = "sk-openai-value";
    env.env["GITHUB_TOKEN"] = "ghp-token-value";
    env.env["SOLANA_RPC_URL"] = "http://127.0.0.1:8899";
    env.env["UNLISTED_VARIABLE"] = "unlisted";
    env.env["USER"] = "evil-user";
    env.env["LOGNAME"] = "evil-user";
    ProcessResult run = env.oms({"run", "--sandbox", "host-null", "--yes", "--worktree", env.worktree, "--", "/bin/sh",
                                 "-c", "env; echo \"HOME_IS=$HOME\"; touch x"});
    INFO(run.out << run.err);
    REQUIRE(run.exit_code == 0);
    std::string home;
    for (auto& line : lines(run.out)) {
        if (line.rfind("HOME_IS=", 0) == 0) {
            home = line.substr(8);
            continue;
        }
        auto name = line.substr(0, line.find('='));
        // sh itself adds PWD (and may add SHLVL, _): not from the parent.
        if (name == "PWD" || name == "SHLVL" || name == "_" || name == "OLDPWD") continue;
        INFO("variable " << name);
        CHECK(std::find(kAllowlist.begin(), kAllowlist.end(), name) != kAllowlist.end());
    }
    CHECK_THAT(run.out, !Catch::Contains("aws-secret-value"));
    CHECK_THAT(run.out, !Catch::Contains("sk-openai-value"));
    CHECK_THAT(run.out, !Catch::Contains("ghp-token-value"));
    CHECK_THAT(run.out, !Catch::Contains("UNLISTED_VARIABLE"));
    // USER and LOGNAME are the uid's name, not the caller's values.
    const std::string name = own_account_name();
    REQUIRE_FALSE(name.empty());
    const std::vector<std::string> output = lines(run.out);
    CHECK(std::count(output.begin(), output.end(), "USER=" + name) == 1);
    CHECK(std::count(output.begin(), output.end(), "LOGNAME=" + name) == 1);
    CHECK_THAT(run.out, !Catch::Contains("evil-user"));
    // Positive controls: an allowlisted variable passes with its value.
    CHECK_THAT(run.out, Catch::Contains("SOLANA_RPC_URL=http://127.0.0.1:8899"));
    CHECK_THAT(run.out, Catch::Contains("PATH=/usr/local/bin:/usr/bin:/bin"));
    // HOME is private: not the user's, and removed after the run.
    REQUIRE_FALSE(home.empty());
    CHECK(home != env.home);
    CHECK_THAT(home, Catch::Contains("/oms-run-"));
    CHECK_FALSE(exists(home));
    CHECK(exists(env.worktree + "/x"));
}

TEST_CASE("the private HOME is 0700 while the command runs, and removed when it fails") {
    OmsEnv env;
    ProcessResult run = env.oms({"run", "--sandbox", "host-null", "--yes", "--", "/bin/sh", "-c",
                                 "stat -c %a \"$HOME\"; echo \"$HOME\"; touch \"$HOME/left-behind\"; exit 3"});
    auto out = lines(run.out);
    REQUIRE(out.size() == 2);
    CHECK(out[0] == "700");
    CHECK(run.exit_code == 3);
    CHECK_FALSE(exists(out[1]));
}

TEST_CASE("exit status passes through; a signal death becomes 128+N") {
    OmsEnv env;
    CHECK(env.oms({"run", "--sandbox", "host-null", "--yes", "--", "/bin/sh", "-c", "exit 42"}).exit_code == 42);
    CHECK(env.oms({"run", "--sandbox", "host-null", "--yes", "--", "/bin/sh", "-c", "kill -TERM $$"}).exit_code ==
          128 + SIGTERM);
    CHECK(env.oms({"run", "--sandbox", "host-null", "--yes", "--", "/bin/true"}).exit_code == 0);
}

// The marks bench/launch-phases.sh reads (oms/launch_phase.hpp): at debug
// level each once, in the order of a launch, with a time that never goes
// back; at the default level, none (silence when nothing went wrong).
TEST_CASE("with OMS_LOG=debug, oms run marks the phases of its launch in order; without it, nothing") {
    OmsEnv env;
    env.env["OMS_LOG"] = "debug";
    const ProcessResult r = env.oms({"run", "--sandbox", "host-null", "--yes", "--", "/bin/true"});
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    const std::vector<std::string> order{"start", "plugins-loaded", "private-home", "policy",
                                         "launch", "command-ended", "recorded"};
    long long previous = 0;
    size_t next = 0;
    for (const std::string& line : lines(r.err)) {
        const size_t at = line.find("phase ");
        if (at == std::string::npos) continue;
        std::istringstream mark(line.substr(at + 6));
        std::string name, word;
        long long time = 0;
        mark >> name >> word >> time;
        REQUIRE(next < order.size());
        CHECK(name == order[next++]);
        CHECK(word == "at");
        CHECK(time >= previous);
        previous = time;
    }
    CHECK(next == order.size());
    env.env.erase("OMS_LOG");
    const ProcessResult quiet = env.oms({"run", "--sandbox", "host-null", "--yes", "--", "/bin/true"});
    CHECK(quiet.exit_code == 0);
    CHECK(quiet.err.find("phase ") == std::string::npos);
}

TEST_CASE("options after the command's first word are the command's, as with env and timeout") {
    OmsEnv env;
    write_file(env.worktree + "/visible.txt", "x\n");
    // No "--": the command starts at its first word, and "-la" is ls's.
    ProcessResult listed = env.oms({"run", "--sandbox", "host-null", "--yes", "/bin/ls", "-la"});
    INFO("stderr: " << listed.err);
    CHECK(listed.exit_code == 0);
    CHECK_THAT(listed.out, Catch::Contains("visible.txt"));
    CHECK_THAT(listed.out, Catch::Contains("total"));  // -l reached ls
    // An option's value is never taken for the command; "--" after the
    // command's first word is the command's too.
    ProcessResult echoed = env.oms({"run", "--sandbox", "host-null", "-y", "/bin/echo", "--sandbox", "--", "-y"});
    INFO("stderr: " << echoed.err);
    CHECK(echoed.exit_code == 0);
    CHECK(echoed.out == "--sandbox -- -y\n");
    // "--" still works, and an unknown oms option before the command is refused.
    CHECK(env.oms({"run", "--sandbox=host-null", "--yes", "--", "/bin/echo", "-n", "a"}).out == "a");
    ProcessResult unknown = env.oms({"run", "--sandbox", "host-null", "--frobnicate", "/bin/true"});
    CHECK(unknown.exit_code == 2);
    CHECK_THAT(unknown.err, Catch::Contains("frobnicate"));
    // A misspelt backend id is answered with the ids there are.
    ProcessResult misspelt = env.oms({"run", "--sandbox", "landlok", "/bin/true"});
    CHECK(misspelt.exit_code == 69);
    CHECK_THAT(misspelt.err, Catch::Contains("backend 'landlok' (chosen by --sandbox) cannot be used"));
    CHECK_THAT(misspelt.err, Catch::Contains("the backends here: ") && Catch::Contains("host-null") &&
                                 Catch::Contains("landlock"));
    // A message that names its command is not prefixed twice.
    ProcessResult none = env.oms({"run", "--sandbox", "host-null", "--yes"});
    CHECK(none.exit_code == 2);
    CHECK(none.err.rfind("oms run: no command given", 0) == 0);
    // oms policy takes the command the same way ("-la" is not refused as oms's).
    ProcessResult policy = env.oms({"policy", "--sandbox", "host-null", "/bin/ls", "-la"});
    INFO("policy stderr: " << policy.err);
    CHECK(policy.exit_code == 0);
    CHECK_THAT(policy.out, Catch::Contains("rules:"));
}

TEST_CASE("--env passes one variable for one run; oms policy names what does not pass, never a credential") {
    OmsEnv env;
    env.env["PYTHONPATH"] = "src";
    env.env["GITHUB_TOKEN"] = "ghp-do-not-show";
    const std::vector<std::string> show{"/bin/sh", "-c", "echo \"[$PYTHONPATH][$CI][$GITHUB_TOKEN]\""};
    auto run = [&](std::vector<std::string> options) {
        std::vector<std::string> args{"run", "--sandbox", "host-null", "--yes"};
        args.insert(args.end(), options.begin(), options.end());
        args.insert(args.end(), show.begin(), show.end());
        return env.oms(args);
    };
    // By default it is dropped (the spec's allowlist), and oms policy says so.
    CHECK(run({}).out == "[][][]\n");
    ProcessResult policy = env.oms({"policy", "--sandbox", "host-null"});
    INFO(policy.out);
    CHECK_THAT(policy.out, Catch::Contains("not passed from your environment (--env NAME passes one for a run):"));
    CHECK_THAT(policy.out, Catch::Contains("PYTHONPATH"));
    CHECK_THAT(policy.out, Catch::Contains("(and 1 credential-like variable, which never passes)"));
    CHECK_THAT(policy.out, !Catch::Contains("GITHUB_TOKEN") && !Catch::Contains("ghp-do-not-show"));

    // --env NAME takes the caller's value, NAME=VALUE a given one.
    ProcessResult passed = run({"--env", "PYTHONPATH", "--env", "CI=1"});
    INFO(passed.err);
    CHECK(passed.exit_code == 0);
    CHECK(passed.out == "[src][1][]\n");
    ProcessResult listed = env.oms({"policy", "--sandbox", "host-null", "--env", "PYTHONPATH"});
    CHECK_THAT(listed.out, Catch::Contains("--env (command line)"));

    // Refused, and nothing runs: credentials (either form), oms's own, unset, not a name.
    const std::string marker = env.worktree + "/ran";
    for (const std::vector<std::string>& bad :
         {std::vector<std::string>{"--env", "GITHUB_TOKEN"}, {"--env", "GITHUB_TOKEN=x"}, {"--env", "AWS_REGION=eu"},
          {"--env", "HOME=/tmp"}, {"--env", "NOT_SET_ANYWHERE"}, {"--env", "1X=y"}}) {
        std::vector<std::string> args{"run", "--sandbox", "host-null", "--yes"};
        args.insert(args.end(), bad.begin(), bad.end());
        args.insert(args.end(), {"/bin/sh", "-c", "touch " + marker});
        ProcessResult refused = env.oms(args);
        INFO(bad[1] << ": " << refused.err);
        CHECK(refused.exit_code == 2);
        CHECK_THAT(refused.err, Catch::Contains("--env ") && Catch::Contains("Nothing ran."));
        CHECK_THAT(refused.err, !Catch::Contains("ghp-do-not-show"));
        CHECK_FALSE(exists(marker));
    }
}

TEST_CASE("--publish under a backend that does not publish: one line, the command runs; oms policy shows it") {
    OmsEnv env;
    ProcessResult run = env.oms({"run", "--sandbox", "host-null", "--yes", "--publish", "5173", "--", "/bin/sh", "-c",
                                 "touch ran"});
    INFO(run.err);
    CHECK(run.exit_code == 0);
    CHECK(exists(env.worktree + "/ran"));
    CHECK_THAT(run.err, Catch::Contains("oms: port 5173 not published: the backend 'host-null' does not publish ports "
                                        "(NET_PUBLISH_LOOPBACK, plugin ABI 1.5)\n"));
    // The control: without --publish, no such line.
    ProcessResult plain = env.oms({"run", "--sandbox", "host-null", "--yes", "--", "/bin/true"});
    CHECK_THAT(plain.err, !Catch::Contains("not published"));
    ProcessResult policy = env.oms({"policy", "--sandbox", "host-null", "--publish", "5173"});
    CHECK_THAT(policy.out, Catch::Contains("oms: port 5173 not published: the backend 'host-null'"));
}

TEST_CASE("stdin and stdout pass through") {
    OmsEnv env;
    ProcessOptions options;
    options.stdin_text = "hello through stdin\n";
    ProcessResult run = env.oms({"run", "--sandbox", "host-null", "--yes", "--", "/bin/cat"}, options);
    CHECK(run.out == "hello through stdin\n");
    ProcessResult err = env.oms({"run", "--sandbox", "host-null", "--yes", "--", "/bin/sh", "-c", "echo oops >&2"});
    CHECK_THAT(err.err, Catch::Contains("oops"));
}

TEST_CASE("SIGTERM and SIGHUP sent to oms reach the command, and HOME is still removed") {
    for (int sig : {SIGTERM, SIGHUP, SIGINT}) {
        OmsEnv env;
        std::string home_file = env.root / "home-path";
        std::vector<std::string> argv{oms_binary(), "run", "--sandbox", "host-null", "--yes", "--", "/bin/sh", "-c",
                                      "echo \"$HOME\" > " + home_file + "; trap 'echo got > " + env.root.path() +
                                          "/trapped; exit 9' " + std::to_string(sig) + "; while :; do sleep 0.05; done"};
        pid_t pid = start_in_own_group(env, argv);
        REQUIRE(wait_for_file(home_file));
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
        kill(pid, sig);
        int status = 0;
        waitpid(pid, &status, 0);
        INFO("signal " << sig);
        CHECK(WIFEXITED(status));
        CHECK(WEXITSTATUS(status) == 9);  // the command's trap ran and its status came back
        CHECK(exists(env.root / "trapped"));
        std::string home = read_file(home_file);
        home.pop_back();
        CHECK_FALSE(exists(home));
    }
}

TEST_CASE("host-null needs approval: without --yes and without a terminal it refuses and runs nothing") {
    OmsEnv env;
    ProcessResult run = env.oms({"run", "--sandbox", "host-null", "--", "/bin/sh", "-c", "touch ran"});
    CHECK(run.exit_code == 77);
    CHECK_THAT(run.err, Catch::Contains("needs approval"));
    CHECK_FALSE(exists(env.worktree + "/ran"));
}

TEST_CASE("the one-time warning appears once per state folder") {
    OmsEnv env;
    const std::string warning = "OMS host mode has NO sandbox here";
    ProcessResult first = env.oms({"run", "--sandbox", "host-null", "--yes", "--", "/bin/true"});
    ProcessResult second = env.oms({"run", "--sandbox", "host-null", "--yes", "--", "/bin/true"});
    CHECK_THAT(first.err, Catch::Contains(warning));
    CHECK_THAT(second.err, !Catch::Contains(warning));
    // A new state folder warns again.
    env.env["XDG_STATE_HOME"] = env.root / "other-state";
    ProcessResult third = env.oms({"run", "--sandbox", "host-null", "--yes", "--", "/bin/true"});
    CHECK_THAT(third.err, Catch::Contains(warning));
}

TEST_CASE("a command that is not found or not executable exits as a shell says: 127, 126") {
    OmsEnv env;
    ProcessResult run = env.oms({"run", "--sandbox", "host-null", "--yes", "--", "no-such-program-oms"});
    CHECK(run.exit_code == 127);
    CHECK_THAT(run.err, Catch::Contains("oms: no-such-program-oms: command not found"));
    ProcessResult missing = env.oms({"run", "--sandbox", "host-null", "--yes", "--", "./not-here"});
    CHECK(missing.exit_code == 127);
    CHECK_THAT(missing.err, Catch::Contains("oms: ./not-here: No such file or directory"));
    write_file(env.worktree + "/plain.sh", "#!/bin/sh\ntouch " + env.worktree + "/plain-ran\n");
    ProcessResult plain = env.oms({"run", "--sandbox", "host-null", "--yes", "--", "./plain.sh"});
    CHECK(plain.exit_code == 126);
    CHECK_THAT(plain.err, Catch::Contains("oms: ./plain.sh: Permission denied"));
    CHECK_FALSE(exists(env.worktree + "/plain-ran"));
    // Positive control: once executable it runs.
    chmod((env.worktree + "/plain.sh").c_str(), 0755);
    CHECK(env.oms({"run", "--sandbox", "host-null", "--yes", "--", "./plain.sh"}).exit_code == 0);
    CHECK(exists(env.worktree + "/plain-ran"));
}

TEST_CASE("a bare command name never runs a file from the worktree") {
    OmsEnv env;
    write_file(env.worktree + "/mytool", "#!/bin/sh\ntouch " + env.worktree + "/planted-ran\n");
    chmod((env.worktree + "/mytool").c_str(), 0755);
    ProcessResult run = env.oms({"run", "--sandbox", "host-null", "--yes", "--", "mytool"});
    CHECK(run.exit_code == 127);
    CHECK_THAT(run.err, Catch::Contains("oms: mytool: command not found"));
    CHECK_FALSE(exists(env.worktree + "/planted-ran"));
    // Positive control: named with a path, the same file runs.
    ProcessResult explicit_path = env.oms({"run", "--sandbox", "host-null", "--yes", "--", "./mytool"});
    CHECK(explicit_path.exit_code == 0);
    CHECK(exists(env.worktree + "/planted-ran"));
}

TEST_CASE("the approval text shows control bytes escaped, so an argument cannot repaint the terminal") {
    OmsEnv env;
    ProcessResult run = env.oms({"run", "--sandbox", "host-null", "--", "/bin/echo", "ok\x1b[2K\rhidden"});
    CHECK(run.exit_code == 77);
    CHECK_THAT(run.err, Catch::Contains("'/bin/echo' 'ok\\x1b[2K\\x0dhidden'"));
    CHECK(run.err.find('\x1b') == std::string::npos);
}

namespace {

// Running, as opposed to gone or a zombie waiting to be reaped.
bool running(pid_t pid) {
    std::string stat;
    try {
        stat = read_file("/proc/" + std::to_string(pid) + "/stat");
    } catch (...) {
        return false;
    }
    size_t close_paren = stat.rfind(')');
    return close_paren != std::string::npos && stat.size() > close_paren + 2 && stat[close_paren + 2] != 'Z';
}

// The parent pid and command name of a process, from /proc/<pid>/stat.
bool parent_and_name(pid_t pid, pid_t& parent, std::string& name) {
    std::string stat;
    try {
        stat = read_file("/proc/" + std::to_string(pid) + "/stat");
    } catch (...) {
        return false;
    }
    size_t open_paren = stat.find('('), close_paren = stat.rfind(')');
    if (open_paren == std::string::npos || close_paren == std::string::npos) return false;
    name = stat.substr(open_paren + 1, close_paren - open_paren - 1);
    std::istringstream rest(stat.substr(close_paren + 2));
    std::string state;
    rest >> state >> parent;
    return true;
}

// A running process named `name` below `ancestor`, as the host sees it (a
// sandbox's own PID namespace gives the command other pids inside), waiting
// up to ten seconds for it to appear; 0 when none does.
pid_t descendant_named(pid_t ancestor, const std::string& name) {
    for (int attempt = 0; attempt < 500; ++attempt) {
        std::map<pid_t, pid_t> parents;
        std::map<pid_t, std::string> names;
        for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
            pid_t pid = static_cast<pid_t>(atoi(entry.path().filename().c_str()));
            pid_t parent = 0;
            std::string comm;
            if (pid > 0 && parent_and_name(pid, parent, comm)) {
                parents[pid] = parent;
                names[pid] = comm;
            }
        }
        for (const auto& [pid, comm] : names) {
            if (comm != name || !running(pid)) continue;
            for (pid_t up = parents[pid]; up > 1; up = parents.count(up) ? parents[up] : 0)
                if (up == ancestor) return pid;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return 0;
}

bool ends_within(pid_t pid, int seconds) {
    for (int i = 0; i < seconds * 50 && running(pid); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(20));
    return !running(pid);
}

}  // namespace

TEST_CASE("the command dies with an oms killed with SIGKILL; its run folder is removed by a later run; a live one "
          "is kept") {
    for (std::string backend : {"host-null", "landlock"}) {
        INFO(backend);
        OmsEnv env;
        if (backend == "landlock" && env.oms({"run", "--sandbox", "landlock", "--", "/bin/true"}).exit_code == 69) {
            WARN("landlock cannot run on this kernel: its half of this test is skipped");
            continue;
        }
        // The user's one folder of run folders (made by the first run), which
        // other tests' runs share: what is planted there is removed at the end.
        const std::string runs = "/tmp/oms-runs-" + std::to_string(geteuid());
        const std::string mark = std::to_string(getpid());
        // Reports go to the worktree: landlock gives the command a private
        // /tmp, where this test's other folders live. Its pid is looked up
        // from the host side, since landlock runs it in its own PID namespace.
        auto sleeper = [&](const std::string& name) {
            return std::vector<std::string>{oms_binary(), "run", "--sandbox", backend, "--yes", "--", "/bin/sh", "-c",
                                            "echo \"$HOME\" > " + env.worktree + "/" + name + "; exec sleep 60"};
        };
        // A: its oms is killed outright, so nothing removes its folder; its
        // command is killed with it.
        pid_t killed = start_in_own_group(env, sleeper("a"));
        REQUIRE(wait_for_file(env.worktree + "/a"));
        pid_t orphan = descendant_named(killed, "sleep");
        REQUIRE(orphan > 0);
        REQUIRE(running(orphan));
        kill(killed, SIGKILL);
        waitpid(killed, nullptr, 0);
        CHECK(ends_within(orphan, 10));
        std::string abandoned = first_line(env.worktree + "/a");
        abandoned = abandoned.substr(0, abandoned.rfind('/'));
        REQUIRE(abandoned.rfind(runs + "/oms-run-", 0) == 0);  // its run folder was made, in the base
        // Every run of the user shares the base, so another test's run may
        // sweep this folder first: gone is what a sweep must achieve either
        // way. While it is still there it gets the mode its command could
        // have given it, and must be swept all the same.
        if (chmod(abandoned.c_str(), 0) != 0) REQUIRE(errno == ENOENT);
        // B: alive while the sweep runs. C: a folder another oms is creating.
        pid_t alive = start_in_own_group(env, sleeper("b"));
        REQUIRE(wait_for_file(env.worktree + "/b"));
        std::string live = first_line(env.worktree + "/b");
        live = live.substr(0, live.rfind('/'));
        std::string being_made = runs + "/oms-run-justmade" + mark;
        REQUIRE(mkdir(being_made.c_str(), 0700) == 0);
        // D: a FIFO where the lock should be (a command can write the temp
        // folder): opening it must not hang the sweep. E: a link named like a
        // run folder, pointing at an unlocked one outside: never followed.
        std::string fifo_folder = runs + "/oms-run-fifo" + mark;
        REQUIRE(mkdir(fifo_folder.c_str(), 0700) == 0);
        REQUIRE(mkfifo((fifo_folder + "/.owner").c_str(), 0600) == 0);
        std::string elsewhere = env.root / "elsewhere";
        REQUIRE(mkdir(elsewhere.c_str(), 0700) == 0);
        write_file(elsewhere + "/.owner", "");
        write_file(elsewhere + "/precious", "keep me\n");
        REQUIRE(symlink(elsewhere.c_str(), (runs + "/oms-run-link" + mark).c_str()) == 0);
        std::remove((env.state_home + "/oms/last-run-dir-sweep").c_str());  // the sweep is due

        ProcessOptions patience;
        patience.timeout_seconds = 30;
        ProcessResult run = env.oms({"run", "--sandbox", "host-null", "--yes", "--", "/bin/true"}, patience);
        CHECK(run.exit_code == 0);  // 137 would mean the FIFO hung it
        CHECK_FALSE(exists(abandoned));
        CHECK(exists(live));        // positive control: its oms holds the lock
        CHECK(exists(being_made));  // no lock file yet, and young: left alone
        CHECK(exists(fifo_folder + "/.owner"));
        CHECK(read_file(elsewhere + "/precious") == "keep me\n");

        kill(alive, SIGTERM);
        waitpid(alive, nullptr, 0);
        CHECK_FALSE(exists(live));
        std::filesystem::remove_all(being_made);
        std::filesystem::remove_all(fifo_folder);
        std::filesystem::remove(runs + "/oms-run-link" + mark);
    }
}

TEST_CASE("when nothing can confine, auto falls back to host-null with a warning on every run") {
    OmsEnv env;
    // Positive control: on this kernel auto picks landlock, without a warning.
    ProcessResult normal = env.oms({"run", "--", "/bin/true"});
    if (normal.exit_code != 0) {
        WARN("landlock cannot run here: the fallback is what every run already does");
    } else {
        CHECK(normal.err.find("no confining backend") == std::string::npos);
    }
    ProcessOptions options;
    for (auto& [name, value] : env.env) options.env.push_back(name + "=" + value);
    options.cwd = env.worktree;
    // A kernel without Landlock still confines where namespaces work (rung 2):
    // auto keeps landlock there, with no warning.
    ProcessResult rung_2 = run_process({REFUSE_SYSCALLS, "landlock", "--", oms_binary(), "run", "--", "/bin/sh", "-c",
                                        "echo ran"},
                                       options);
    INFO(rung_2.err);
    CHECK(rung_2.exit_code == 0);
    CHECK(rung_2.out == "ran\n");
    CHECK(rung_2.err.find("no confining backend") == std::string::npos);
    // Without Landlock and without namespaces nothing confines.
    std::vector<std::string> argv{REFUSE_SYSCALLS, "landlock,namespaces", "--", oms_binary(), "run", "--yes", "--",
                                  "/bin/sh", "-c", "echo ran"};
    for (int run = 0; run < 2; ++run) {  // every run, not once
        INFO("run " << run);
        ProcessResult fallback = run_process(argv, options);
        CHECK(fallback.exit_code == 0);
        CHECK(fallback.out == "ran\n");
        CHECK_THAT(fallback.err,
                   Catch::Contains("oms: warning: no confining backend can run here; using host-null (no sandbox)"));
    }
    // Without --yes and without a terminal it asks for approval it cannot get: nothing runs.
    argv.erase(std::find(argv.begin(), argv.end(), "--yes"));
    ProcessResult refused = run_process(argv, options);
    CHECK(refused.exit_code == 77);
    CHECK(refused.out.empty());
}
