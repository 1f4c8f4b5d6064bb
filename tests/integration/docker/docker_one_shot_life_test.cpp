// Docker item 6 through the real `oms run --sandbox docker`, one-shot mode:
// a command that ignores SIGTERM, SIGINT and SIGHUP gets its oms killed with
// -9 by a harness; the docker CLI is orphaned and the container used to
// keep running with the worktree mounted read-write. It must be gone within
// a deadline. A container of the task left behind anyway (labelled as oms
// labels them) is removed by `oms task end` and by the task's next run,
// while a live run's container is left alone (control).
#include "docker_fixture.hpp"
#include "oms_user.hpp"

#include <catch2/catch.hpp>

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <thread>

using namespace oms::test;
using namespace oms::test::docker;

namespace {

using Clock = std::chrono::steady_clock;

std::vector<std::string> lines_of(const std::string& text) {
    std::vector<std::string> out;
    std::string line;
    for (char c : text) {
        if (c != '\n') line += c;
        else if (!line.empty()) out.push_back(line), line.clear();
    }
    return out;
}

// Containers (running or not) that mount `worktree`, whatever their labels.
std::vector<std::string> containers_mounting(const std::string& worktree) {
    Cli ps = docker_cli({"ps", "-a", "-q", "--no-trunc", "--filter", "volume=" + worktree});
    REQUIRE(ps.code == 0);
    return lines_of(ps.out);
}

bool gone_within(const std::string& worktree, std::chrono::seconds limit) {
    const auto deadline = Clock::now() + limit;
    while (!containers_mounting(worktree).empty()) {
        if (Clock::now() > deadline) return false;
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return true;
}

bool container_exists(const std::string& id) { return docker_cli({"inspect", "--format", "{{.Id}}", id}).code == 0; }

std::string content_or_empty(const std::string& path) {
    try {
        return read_file(path);
    } catch (const std::exception&) {
        return "";
    }
}

// `oms run -- sh -c SCRIPT` from the worktree, in the background, its output in files.
pid_t start_oms_run(const OmsUser& u, const std::string& script) {
    std::vector<std::string> argv{oms_binary(), "run", "--", "sh", "-c", script};
    std::vector<std::string> env{"HOME=" + u.home, "LANG=C.UTF-8", "PATH=/usr/local/bin:/usr/bin:/bin"};
    for (const char* pass : {"DOCKER_HOST", "OMS_SOURCE_DIR"})
        if (const char* value = std::getenv(pass)) env.push_back(std::string(pass) + "=" + value);
    std::vector<char*> args, envp;
    for (auto& a : argv) args.push_back(a.data());
    for (auto& e : env) envp.push_back(e.data());
    args.push_back(nullptr);
    envp.push_back(nullptr);
    const std::string log = u.root / "oms-run.log";
    pid_t pid = fork();
    if (pid == 0) {
        int out = open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
        int in = open("/dev/null", O_RDONLY);
        dup2(in, 0), dup2(out, 1), dup2(out, 2);
        if (chdir(u.worktree.c_str()) != 0) _exit(126);
        execve(args[0], args.data(), envp.data());
        _exit(127);
    }
    return pid;
}

bool wait_for_file(const std::string& path, std::chrono::seconds limit) {
    const auto deadline = Clock::now() + limit;
    while (content_or_empty(path).empty()) {
        if (Clock::now() > deadline) return false;
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return true;
}

bool still_ticking(const std::string& path) {
    const std::string before = content_or_empty(path);
    for (int i = 0; i < 40; ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        if (content_or_empty(path) != before) return true;
    }
    return false;
}

// Deaf to the signals a harness sends before -9; rewrites `ticks` every 50 ms.
const std::string kDeafTicker = "trap '' TERM INT HUP; i=0; while :; do i=$((i+1)); echo $i > ticks; sleep 0.05; done";

// A container as oms labels a one-shot run's, whose oms is gone (no lock file).
std::string planted_leftover(const OmsUser& u, const std::string& run_name) {
    Cli run = docker_cli({"run", "-d", "--label=oms.managed=one-shot", "--label=oms.worktree=" + u.worktree,
                          "--label=oms.run=" + run_name, "--network=none",
                          "--mount=type=bind,source=" + u.worktree + ",target=/wt", test_image(), "sleep", "300"});
    REQUIRE(run.code == 0);
    return lines_of(run.out).at(0);
}

void remove_all(const std::vector<std::string>& ids) {
    for (const std::string& id : ids) docker_cli({"rm", "-f", id});
}

}  // namespace

TEST_CASE("docker one-shot: the container goes when oms is killed with -9", "[docker]") {
    require_daemon();
    OmsUser u(false);
    const pid_t oms = start_oms_run(u, kDeafTicker);
    REQUIRE(oms > 0);
    const bool started = wait_for_file(u.worktree + "/ticks", std::chrono::seconds(60));
    INFO(content_or_empty(u.root / "oms-run.log"));
    REQUIRE(started);
    const std::vector<std::string> running = containers_mounting(u.worktree);
    REQUIRE(running.size() == 1);
    CHECK(still_ticking(u.worktree + "/ticks"));  // control: the command runs until oms goes
    REQUIRE(kill(oms, SIGKILL) == 0);
    waitpid(oms, nullptr, 0);
    const bool gone = gone_within(u.worktree, std::chrono::seconds(15));
    CHECK(gone);
    CHECK_FALSE(still_ticking(u.worktree + "/ticks"));
    if (!gone) remove_all(running);
}

TEST_CASE("docker one-shot: oms task end and the task's next run remove its leftover containers, not a live run's",
          "[docker]") {
    require_daemon();
    OmsUser u(false);
    const std::string first = planted_leftover(u, "oms-run-0000000000000001");
    ProcessResult end = u.oms({"task", "end"});
    INFO(end.out << end.err);
    CHECK(end.exit_code == 0);
    CHECK_FALSE(container_exists(first));
    // The next run of the task sweeps a dead run's container, and leaves a live run's alone.
    const pid_t live = start_oms_run(u, kDeafTicker);
    REQUIRE(live > 0);
    REQUIRE(wait_for_file(u.worktree + "/ticks", std::chrono::seconds(60)));
    const std::vector<std::string> live_ids = containers_mounting(u.worktree);
    REQUIRE(live_ids.size() == 1);
    const std::string second = planted_leftover(u, "oms-run-0000000000000002");
    ProcessResult next = u.oms({"run", "--", "true"});
    INFO(next.out << next.err);
    CHECK(next.exit_code == 0);
    CHECK_FALSE(container_exists(second));
    CHECK(container_exists(live_ids[0]));           // control: the live run's container is kept
    CHECK(still_ticking(u.worktree + "/ticks"));  // and its command still runs
    kill(live, SIGKILL);
    waitpid(live, nullptr, 0);
    CHECK(gone_within(u.worktree, std::chrono::seconds(15)));
    remove_all(containers_mounting(u.worktree));
    remove_all({first, second});
}
