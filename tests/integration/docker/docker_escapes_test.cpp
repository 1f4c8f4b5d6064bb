// The escape classes of the docker backend's red-team review, each done the
// way a hostile command would (one command prepares, a later command or a
// later task strikes), asserting the host-side result next to a positive
// control, one-shot and warm where both apply:
//   1. worktree paths injected into docker's --mount options
//   2. a .git link a command made, mounted from its host target
//   3. a pinned file replaced by renaming its parent folder
//   5. the in-container runner impersonated through ptrace, or asked for a
//      command of its own over its socket
//   7. runner umask, the socket folder, background fork bombs, io_uring
#include "docker_fixture.hpp"
#include "process.hpp"

#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>

using namespace oms::test;
using namespace oms::test::docker;

namespace {

std::string quoted(const std::string& s) { return "'" + s + "'"; }

std::string probe_in(Task& task) {
    const std::string copy = task.worktree + "/escape_probe";
    std::filesystem::copy_file(OMS_ESCAPE_PROBE, copy, std::filesystem::copy_options::overwrite_existing);
    chmod(copy.c_str(), 0755);
    return copy;
}

mode_t mode_of(const std::string& path) {
    struct stat st;
    REQUIRE(lstat(path.c_str(), &st) == 0);
    return st.st_mode & 07777;
}

}  // namespace

TEST_CASE("docker escapes 1: a worktree path cannot add fields to a --mount option", "[docker]") {
    require_daemon();
    // Each attack: a folder whose name carries extra mount fields, holding a
    // file the next run masks; then the strike. The host's `/` mounted at
    // `hostroot` or over the worktree would show the host's home and let the
    // command write outside the worktree.
    const std::vector<std::string> hostile = {"h,source=/,target=$PWD/hostroot", "x,source=/,target=$PWD",
                                              "q\\\"uote=,readonly=false"};
    for (bool warm : {false, true}) {
        for (const std::string& name : hostile) {
            CAPTURE(warm, name);
            Task task(warm);
            const std::string outside = task.root / "outside.txt";
            write_file(outside, "host file\n");
            Outcome prepare = task.sh("mkdir -p \"$PWD/" + name + "\" && echo LOOT > \"$PWD/" + name +
                                      "/loot-keypair.json\"");
            REQUIRE(prepare.status == OMS_OK);
            REQUIRE(prepare.exit_code == 0);
            Outcome strike = task.sh("cat " + quoted(task.home + "/.ssh/id_rsa") + " \"$PWD" + task.home +
                                     "/.ssh/id_rsa\" \"$PWD/hostroot" + task.home + "/.ssh/id_rsa\"; echo pwned > \"$PWD" +
                                     outside + "\"; echo pwned > \"$PWD/hostroot" + outside + "\"; echo pwned > " +
                                     quoted(outside) + "; cat README \"" + name +
                                     "/loot-keypair.json\" target/deploy/prog-keypair.json; "
                                     "echo written >> README; echo done");
            INFO(strike.error << strike.err);
            REQUIRE(strike.status == OMS_OK);
            CHECK(strike.out.find("PRIVATE KEY") == std::string::npos);
            CHECK(read_file(outside) == "host file\n");
            CHECK(strike.out.find("LOOT") == std::string::npos);       // the odd name is still masked
            CHECK(strike.out.find("SECRETKEY") == std::string::npos);  // control: the plain keypair too
            CHECK(strike.out.find("readme\n") != std::string::npos);   // control: the worktree is there
            CHECK(strike.out.find("done") != std::string::npos);
            CHECK(read_file(task.worktree + "/README") == "readme\nwritten\n");  // control: and writable
        }
    }
}

TEST_CASE("docker escapes 1: a path with a line break stops the run instead of cutting the option", "[docker]") {
    require_daemon();
    for (bool warm : {false, true}) {
        CAPTURE(warm);
        Task task(warm);
        const std::string victim = task.root / "victim";
        make_dirs(victim);
        if (geteuid() == 0) REQUIRE(chown(victim.c_str(), container_uid(), container_uid()) == 0);
        Outcome prepare = task.sh("d=\"$PWD/y\nsource=" + victim + ",target=$PWD/z\"; mkdir -p \"$d\" && "
                                  "echo k > \"$d/a-keypair.json\"");
        REQUIRE(prepare.exit_code == 0);
        Outcome strike = task.sh("echo pwned > z/owned; echo ran");
        CHECK(strike.status != OMS_OK);
        CHECK(strike.error.find("line break") != std::string::npos);
        CHECK(strike.out.find("ran") == std::string::npos);
        CHECK(!exists(victim + "/owned"));
        task.end_task();
        // Control: once the name is gone, commands run again.
        std::filesystem::remove_all(task.worktree + "/y\nsource=" + victim + ",target=" + task.worktree + "/z");
        CHECK(task.sh("echo ran").out == "ran\n");
    }
}

TEST_CASE("docker escapes 2: a .git link made by a command is never mounted", "[docker]") {
    require_daemon();
    for (bool warm : {false, true}) {
        CAPTURE(warm);
        Task task(warm);
        std::filesystem::remove_all(task.worktree + "/.git");  // a worktree without .git
        Outcome prepare = task.sh("ln -s " + quoted(task.home + "/.ssh") + " .git && echo linked");
        REQUIRE(prepare.out == "linked\n");
        task.end_task();
        Outcome strike = task.sh("cat .git/id_rsa; echo ran");
        CHECK(strike.out.find("PRIVATE KEY") == std::string::npos);
        CHECK(strike.status != OMS_OK);
        CHECK(strike.error.find(".git is a symbolic link") != std::string::npos);
        // A link to a folder holding a pinned file: the same refusal.
        std::filesystem::remove(task.worktree + "/.git");
        std::filesystem::rename(task.worktree + "/verify", task.root / "verify.real");
        std::filesystem::create_directory_symlink(task.root / "verify.real", task.worktree + "/verify");
        Outcome pinned = task.sh("echo ran");
        CHECK(pinned.status != OMS_OK);
        CHECK(pinned.error.find("symbolic link") != std::string::npos);
        task.end_task();
    }
    // Control: a real .git is mounted, read-only.
    Task task(true);
    Outcome real = task.sh("cat .git/config; echo x >> .git/config || echo refused");
    CHECK(real.out == "[core]\nrefused\n");
    CHECK(read_file(task.worktree + "/.git/config") == "[core]\n");
    // A link swapped in between oms's check and the daemon's mount would show
    // another file at .git: the runner, told what oms checked, refuses then.
    struct stat st;
    REQUIRE(lstat((task.worktree + "/.git").c_str(), &st) == 0);
    const std::string expect = std::to_string(st.st_dev) + ":" + std::to_string(st.st_ino) + ":" + task.worktree + "/.git";
    Outcome swapped = task.run({"/.oms/runner", "--expect=" + std::to_string(st.st_dev) + ":" +
                                                    std::to_string(st.st_ino + 1) + ":" + task.worktree + "/.git",
                                "--exec", "echo", "ran"});
    CHECK(swapped.exit_code == 125);
    CHECK(swapped.err.find("is not what oms checked on the host") != std::string::npos);
    CHECK(swapped.out.empty());
    CHECK(task.run({"/.oms/runner", "--expect=" + expect, "--exec", "echo", "ran"}).out == "ran\n");  // control
}

TEST_CASE("docker escapes 3: renaming a pinned file's folder cannot replace it", "[docker]") {
    require_daemon();
    for (bool warm : {false, true}) {
        CAPTURE(warm);
        Task task(warm);
        Outcome strike = task.sh("mv verify verify.old || echo mv-refused; "
                                 "mkdir -p verify; echo 'exit 0' > verify/pinned.sh || echo write-refused; "
                                 "rm -rf verify 2>/dev/null; echo control > verify/new.txt && echo wrote");
        CHECK(strike.out.find("mv-refused") != std::string::npos);
        CHECK(strike.out.find("write-refused") != std::string::npos);
        CHECK(read_file(task.worktree + "/verify/pinned.sh") == "echo pinned\n");
        CHECK(!exists(task.worktree + "/verify.old"));
        // Control: the pinned file's folder stays writable.
        CHECK(strike.out.find("wrote") != std::string::npos);
        CHECK(read_file(task.worktree + "/verify/new.txt") == "control\n");
        // The next command still sees the pinned file in place.
        CHECK(task.sh("cat verify/pinned.sh").out == "echo pinned\n");
    }
}

TEST_CASE("docker escapes 5: a command cannot trace or read the runner, and statuses stay true", "[docker]") {
    require_daemon();
    // Control: the probe can trace its own child where ptrace is allowed (the host).
    ProcessResult self = run_process({OMS_ESCAPE_PROBE, "self"});
    REQUIRE(self.exit_code == 0);
    for (bool warm : {true, false}) {
        CAPTURE(warm);
        Task task(warm);
        const std::string probe = probe_in(task);
        if (warm) {  // every other process of a warm container: the runner (PID 1) and its helpers
            Outcome attack = task.run({probe, "attack"});
            INFO(attack.out << attack.err);
            REQUIRE(attack.status == OMS_OK);
            CHECK(attack.out.find("ptrace attach to 1: Operation not permitted") != std::string::npos);
            CHECK(attack.out.find("worked: 0") != std::string::npos);
            CHECK(attack.exit_code == 0);
        }
        CHECK(task.run({probe, "self"}).exit_code == 1);  // ptrace is refused to commands altogether
        // A later command's status and output come back as they are.
        Outcome later = task.sh("echo real; exit 3");
        CHECK(later.exit_code == 3);
        CHECK(later.out == "real\n");
    }
}

// The runner's socket is in the container too (/.oms/sock). A command that
// asks the runner for a command of its own, as oms does, got one that the
// runner served like the task's: with a process holding the connection it
// outlived the run (leftovers are killed only while no command runs) and
// wrote into the worktree seconds after the run returned. The runner now
// serves only peers outside the container's PID namespace (oms on the host).
TEST_CASE("docker escapes 5: a command cannot ask the warm runner for a command that outlives its run", "[docker]") {
    require_daemon();
    Task task(true);
    const std::string probe = probe_in(task);
    const std::string late = task.worktree + "/late-marker";
    Outcome attack = task.run({probe, "request", "/.oms/sock/runner.sock", "/bin/sh", "-c",
                               "sleep 3; echo survived > " + quoted(late)});
    INFO(attack.out << attack.err);
    REQUIRE(attack.status == OMS_OK);
    CHECK(attack.out.find("connected") != std::string::npos);  // the socket was reached: the runner refused
    CHECK(attack.out.find("refused") != std::string::npos);
    sleep(5);  // the requested command would have written by now
    CHECK(!exists(late));
    // Control: oms's own requests are served, the worktree is writable, statuses stay true.
    Outcome later = task.sh("echo real > " + quoted(task.worktree + "/now-marker") + "; echo real; exit 3");
    CHECK(later.exit_code == 3);
    CHECK(later.out == "real\n");
    CHECK(read_file(task.worktree + "/now-marker") == "real\n");
}

TEST_CASE("docker escapes 7: warm files get the one-shot mode 0644", "[docker]") {
    require_daemon();
    for (bool warm : {false, true}) {
        CAPTURE(warm);
        Task task(warm);
        REQUIRE(task.sh("echo a > made.txt && mkdir made.d").exit_code == 0);
        CHECK(mode_of(task.worktree + "/made.txt") == 0644);
        CHECK(mode_of(task.worktree + "/made.d") == 0755);
    }
}

TEST_CASE("docker escapes 7: the socket folder is private, and removed with what a command put there", "[docker]") {
    require_daemon();
    Task task(true);
    Outcome fill = task.sh("dd if=/dev/zero of=/.oms/sock/fill bs=1k count=64 2>/dev/null && echo filled; "
                           "mkdir /.oms/sock/d && echo x > /.oms/sock/d/f && chmod 000 /.oms/sock/d; echo ok");
    REQUIRE(fill.out.find("ok") != std::string::npos);
    const std::string docker_state = task.root / "state/docker";
    std::vector<std::string> folders;
    for (const auto& entry : std::filesystem::directory_iterator(docker_state))
        if (entry.is_directory()) folders.push_back(entry.path());
    REQUIRE(folders.size() == 1);
    struct stat st;
    REQUIRE(lstat(folders[0].c_str(), &st) == 0);
    CHECK(st.st_uid == geteuid());
    CHECK(mode_of(docker_state) == 0700);
    if (geteuid() == 0) {
        // Root takes the folder back once the runner listens: nothing more fits in it.
        CHECK((st.st_mode & 07777) == 0711);
        CHECK(fill.out.find("filled") == std::string::npos);
        CHECK(!exists(folders[0] + "/fill"));
    } else {
        CHECK((st.st_mode & 07777) == 0700);
    }
    CHECK(task.end_task() == OMS_OK);
    CHECK(!exists(folders[0]));
    // Control: a new command of the task gets a working container again.
    CHECK(task.sh("echo back").out == "back\n");
}

TEST_CASE("docker escapes 7: a background fork bomb dies with its command, later commands work", "[docker]") {
    require_daemon();
    for (const char* bomb : {"(while :; do sleep 100 & done) &",                // in the command's group
                             "setsid sh -c 'while :; do sleep 100 & done' &"}) {  // escaped from it
        CAPTURE(bomb);
        Task task(true);
        Outcome started = task.sh(std::string(bomb) + " sleep 2; echo started");
        CHECK(started.out.find("started") != std::string::npos);
        // The bomb's own command does not pass as a clean success: a note
        // says the limit refused forks, and (when the bomb stayed in the
        // command's group) that its leftovers were killed.
        CHECK(started.err.find("process limit refused forks") != std::string::npos);
        if (std::string(bomb).rfind("setsid", 0) != 0)
            CHECK(started.err.find("left processes running") != std::string::npos);
        usleep(1500 * 1000);  // an escaped bomb is killed before its command's status too
        Outcome later = task.sh("echo alive; exit 3");
        INFO(later.error << later.err);
        CHECK(later.status == OMS_OK);
        CHECK(later.err.empty());  // control: a plain command gets no note
        CHECK(later.out == "alive\n");
        CHECK(later.exit_code == 3);
        Outcome count = task.sh("ls /proc | grep -c '^[0-9]'");
        CHECK(std::stoi(count.out) < 10);  // the runner, its helpers, the command: the bomb is gone
    }
}

TEST_CASE("docker escapes 7: io_uring_setup is refused to commands", "[docker]") {
    require_daemon();
    // Control: the probe sees io_uring where it is allowed (this host's kernel).
    REQUIRE(run_process({OMS_ESCAPE_PROBE, "io_uring"}).exit_code == 1);
    for (bool warm : {false, true}) {
        CAPTURE(warm);
        Task task(warm);
        const std::string probe = probe_in(task);
        Outcome uring = task.run({probe, "io_uring"});
        INFO(uring.out << uring.err << uring.error);
        CHECK(uring.exit_code == 0);
        CHECK(uring.out.find("Operation not permitted") != std::string::npos);
        CHECK(task.run({"true"}).exit_code == 0);  // control: other calls work
    }
}

namespace {

// Sets an environment variable of this process (where the plugin looks the
// docker CLI up) for one scope.
class PathOverride {
public:
    explicit PathOverride(const std::string& value) : old_(std::getenv("PATH") ? std::getenv("PATH") : "") {
        setenv("PATH", value.c_str(), 1);
    }
    ~PathOverride() { setenv("PATH", old_.c_str(), 1); }
    const std::string& old() const { return old_; }

private:
    std::string old_;
};

}  // namespace

TEST_CASE("docker escapes 10: a docker CLI a command planted on oms's PATH is never run", "[docker]") {
    require_daemon();
    for (bool warm : {false, true}) {
        CAPTURE(warm);
        Task task(warm);
        // An activated virtualenv puts a worktree folder first on PATH; a
        // command writes `docker` there.
        const std::string marker = task.root / "planted-docker-ran";
        const std::string planted = task.worktree + "/.venv/bin/docker";
        write_file(planted, "#!/bin/sh\ntouch " + quoted(marker) + "\nexec /usr/bin/docker \"$@\"\n");
        REQUIRE(chmod(planted.c_str(), 0755) == 0);
        {
            PathOverride path(task.worktree + "/.venv/bin:" + std::string(std::getenv("PATH")));
            Outcome strike = task.sh("echo ran");
            INFO(strike.error);
            CHECK(strike.status != OMS_OK);
            CHECK(strike.error.find("refusing to run the docker CLI " + planted) != std::string::npos);
            CHECK(strike.out.empty());
            CHECK_FALSE(exists(marker));
        }
        // Positive control: with the usual PATH the same task runs.
        Outcome control = task.sh("echo ran");
        INFO(control.error);
        CHECK(control.out == "ran\n");
        CHECK_FALSE(exists(marker));
        task.end_task();
    }
}

TEST_CASE("docker escapes 11: a runtime manifest a command could have written is never read", "[docker]") {
    require_daemon();
    for (bool warm : {false, true}) {
        CAPTURE(warm);
        Task task(warm);
        const std::string trusted = task.manifest;
        // A command copies the manifest into the worktree and edits it there;
        // the user's config names that copy directly, or through a link
        // outside every folder commands write.
        const std::string planted = task.worktree + "/runtime.toml";
        std::filesystem::copy_file(trusted, planted);
        const std::string linked = task.root / "linked-runtime.toml";
        REQUIRE(symlink(planted.c_str(), linked.c_str()) == 0);
        for (const std::string& named : {planted, linked}) {
            CAPTURE(named);
            task.host.strings["manifest"] = named;
            task.recreate_instance();
            Outcome strike = task.sh("echo ran");
            INFO(strike.error);
            CHECK(strike.status != OMS_OK);
            CHECK(strike.error.find("refusing the runtime manifest " + named) != std::string::npos);
            CHECK(strike.error.find("lies in " + task.worktree) != std::string::npos);
            CHECK(strike.out.empty());
        }
        // A FIFO where the manifest should be is refused at once, not waited on.
        const std::string fifo = task.root / "fifo-runtime.toml";
        REQUIRE(mkfifo(fifo.c_str(), 0600) == 0);
        task.host.strings["manifest"] = fifo;
        task.recreate_instance();
        Outcome stalled = task.sh("echo ran");
        INFO(stalled.error);
        CHECK(stalled.status != OMS_OK);
        CHECK(stalled.error.find("not a readable regular file") != std::string::npos);
        // Positive control: the manifest outside every write root still runs.
        task.host.strings["manifest"] = trusted;
        task.recreate_instance();
        Outcome control = task.sh("echo ran");
        INFO(control.error);
        CHECK(control.out == "ran\n");
        task.end_task();
    }
}
