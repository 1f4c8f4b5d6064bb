// Leftover processes and planted secret names, done as a hostile command
// would, each next to a positive control:
//   5. warm: a process a command leaves (setsid, so neither in its group nor
//      its tree) lived on while any other command of the task ran, since the
//      runner killed such leftovers only once no per-command handler was
//      left, and a handler is a process the command can stop; it must die
//      when its command's status comes back
//   8. a keypair restored (cp) into a file a command had hard-linked to a
//      harmless name is refused, not read through that name
//   9. a keypair's name made a folder by a command: what the user's cp puts
//      inside it stays hidden
#include "docker_fixture.hpp"

#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <thread>

using namespace oms::test;
using namespace oms::test::docker;

namespace {

using Clock = std::chrono::steady_clock;

std::string content_or_empty(const std::string& path) {
    try {
        return read_file(path);
    } catch (const std::exception&) {
        return "";
    }
}

// True once `path` (a counter a process keeps rewriting every 50 ms) stays
// the same for half a second, before `limit` passes.
bool ticks_stop(const std::string& path, std::chrono::seconds limit) {
    const auto deadline = Clock::now() + limit;
    std::string last = content_or_empty(path);
    auto same_since = Clock::now();
    while (Clock::now() < deadline) {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        const std::string now = content_or_empty(path);
        if (now != last) last = now, same_since = Clock::now();
        else if (Clock::now() - same_since > std::chrono::milliseconds(500)) return true;
    }
    return false;
}

const std::string kTicker = "i=0; while :; do i=$((i+1)); echo $i > ticks; sleep 0.05; done";

}  // namespace

TEST_CASE("docker escapes 5: a leftover dies with its command's status, even while another command runs",
          "[docker]") {
    require_daemon();
    // setsid: out of the command's group and session, its parent gone (the
    // old runner's handler-count rule was all that reached it); a plain
    // double fork stays in the group (control: it died before too).
    for (const std::string& leave : {"setsid sh -c '" + kTicker + "' </dev/null >/dev/null 2>&1 &",
                                     "(sh -c '" + kTicker + "' </dev/null >/dev/null 2>&1 &) &"}) {
        CAPTURE(leave);
        Task task(true);
        REQUIRE(task.run({"true"}).exit_code == 0);  // the container is up
        Outcome other;
        std::thread long_command([&] { other = task.sh("touch a-started; sleep 8; echo a-done"); });
        REQUIRE(file_appears(task.worktree + "/a-started", std::chrono::seconds(30)));
        // The leftover also tries to stop the runner, as it stopped the old per-command handler.
        Outcome leaver = task.sh("kill -STOP 1 2>/dev/null; " + leave + " sleep 0.3; echo b-done");
        INFO(leaver.error << leaver.err);
        REQUIRE(leaver.status == OMS_OK);
        CHECK(leaver.out == "b-done\n");
        REQUIRE(exists(task.worktree + "/ticks"));  // it did run
        // From the host: the counter stops within 3 s (the other command still has ~7 s to go).
        CHECK(ticks_stop(task.worktree + "/ticks", std::chrono::seconds(3)));
        CHECK_THAT(leaver.err, Catch::Contains("left processes running"));
        long_command.join();
        // Control: the other command lived through it and its status came back.
        CHECK(other.status == OMS_OK);
        CHECK(other.out == "a-done\n");
        CHECK(other.exit_code == 0);
        // Control: the runner was not stopped; later commands work.
        Outcome later = task.sh("echo alive; exit 3");
        CHECK(later.out == "alive\n");
        CHECK(later.exit_code == 3);
    }
}

TEST_CASE("docker escapes 8: a keypair restored into a hard link planted earlier is refused, not read",
          "[docker]") {
    require_daemon();
    for (bool warm : {false, true}) {
        CAPTURE(warm);
        Task task(warm);
        // In a folder of its own: target/deploy holds the task's keypair, so
        // it is pinned (a mount point) and a link out of it crosses mounts.
        const std::string key = task.worktree + "/keys/new-keypair.json";
        Outcome plant = task.sh("mkdir -p keys && : > keys/new-keypair.json && "
                                "ln keys/new-keypair.json notes.txt && echo planted");
        REQUIRE(plant.out == "planted\n");
        write_file(key, "[9,9,SECRETKEY2]\n");  // cp saved.json over it: the same inode
        struct stat st;
        REQUIRE(stat(key.c_str(), &st) == 0);
        REQUIRE(st.st_nlink == 2);
        Outcome strike = task.sh("cat notes.txt; echo done");
        CHECK(strike.out.find("SECRETKEY2") == std::string::npos);
        CHECK(strike.status != OMS_OK);
        CHECK_THAT(strike.error, Catch::Contains(key + " (a file with 2 names, also " + task.worktree + "/notes.txt)"));
        // Control: once the key has one name again, the run goes ahead with it masked.
        REQUIRE(unlink((task.worktree + "/notes.txt").c_str()) == 0);
        Outcome after = task.sh("cat keys/new-keypair.json; echo done");
        INFO(after.error);
        CHECK(after.status == OMS_OK);
        CHECK(after.out.find("SECRETKEY2") == std::string::npos);
        CHECK(after.out.find("done") != std::string::npos);
    }
}

TEST_CASE("docker escapes 8b: a keypair name planted as a link to a harmless file is refused, not read",
          "[docker]") {
    require_daemon();
    for (bool warm : {false, true}) {
        CAPTURE(warm);
        Task task(warm);
        write_file(task.worktree + "/notes.txt", "notes\n");
        Outcome plant = task.sh("mkdir -p target/deploy && ln -s ../../notes.txt target/deploy/new-keypair.json && "
                                "echo planted");
        REQUIRE(plant.out == "planted\n");
        // cp saved.json target/deploy/new-keypair.json follows the link.
        write_file(task.worktree + "/target/deploy/new-keypair.json", "[9,9,SECRETKEY4]\n");
        REQUIRE(read_file(task.worktree + "/notes.txt") == "[9,9,SECRETKEY4]\n");
        Outcome strike = task.sh("cat notes.txt; echo done");
        INFO(strike.error << strike.err);
        CHECK(strike.out.find("SECRETKEY4") == std::string::npos);
        CHECK(strike.status != OMS_OK);
        CHECK_THAT(strike.error, Catch::Contains(task.worktree + "/target/deploy/new-keypair.json (a link to "));
        CHECK_THAT(strike.error, Catch::Contains("a name no keypair rule hides"));
        // Control: a link to a file with a keypair's name of its own is fine,
        // that file is masked by its name.
        REQUIRE(unlink((task.worktree + "/target/deploy/new-keypair.json").c_str()) == 0);
        write_file(task.worktree + "/keys/saved-keypair.json", "[9,9,SECRETKEY4]\n");
        REQUIRE(symlink("../../keys/saved-keypair.json", (task.worktree + "/target/deploy/new-keypair.json").c_str()) == 0);
        write_file(task.worktree + "/notes.txt", "notes\n");
        Outcome after = task.sh("cat keys/saved-keypair.json target/deploy/new-keypair.json notes.txt; echo done");
        INFO(after.error << after.err);
        CHECK(after.status == OMS_OK);
        CHECK(after.out.find("SECRETKEY4") == std::string::npos);
        CHECK(after.out.find("notes") != std::string::npos);
        CHECK(after.out.find("done") != std::string::npos);
    }
}

TEST_CASE("docker escapes 9: a folder named like a keypair is hidden whole, with what was copied into it",
          "[docker]") {
    require_daemon();
    for (bool warm : {false, true}) {
        CAPTURE(warm);
        Task task(warm);
        Outcome plant = task.sh("mkdir -p target/deploy/new-keypair.json target/deploy/plain && echo planted");
        REQUIRE(plant.out == "planted\n");
        // cp saved.json target/deploy/new-keypair.json: it lands inside the folder.
        write_file(task.worktree + "/target/deploy/new-keypair.json/saved.json", "[7,7,SECRETKEY3]\n");
        write_file(task.worktree + "/target/deploy/plain/saved.json", "[plain]\n");
        Outcome strike = task.sh("cat target/deploy/new-keypair.json/saved.json; cat target/deploy/plain/saved.json; "
                                 "echo done");
        INFO(strike.error << strike.err);
        REQUIRE(strike.status == OMS_OK);
        CHECK(strike.out.find("SECRETKEY3") == std::string::npos);
        CHECK(strike.out.find("[plain]") != std::string::npos);  // control: an ordinary folder is seen
        CHECK(strike.out.find("done") != std::string::npos);
        CHECK(read_file(task.worktree + "/target/deploy/new-keypair.json/saved.json") == "[7,7,SECRETKEY3]\n");
    }
}
