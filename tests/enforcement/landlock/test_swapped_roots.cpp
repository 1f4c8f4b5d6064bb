// A folder a command can write, named by the policy (a PATH entry in the
// worktree), swapped for a link into HOME while later runs start. Run 1
// stays running and exchanges <worktree>/bin (a folder) with a link to
// another repository under HOME as fast as it can; runs 2..N start with
// that PATH entry and try to read and list the repository, and copy what
// they find into the worktree. Each check oms makes sees the folder or the
// link, and a second resolution a moment later may see the other: unless
// every step keeps what it checked, the repository becomes a read root or is
// bound into HOME's skeleton (and listed through `/`'s read_dir).
#include "test_support.hpp"

#include "process.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <thread>

using namespace oms::test;
namespace fs = std::filesystem;

namespace {

bool has(const std::string& text, const std::string& what) { return text.find(what) != std::string::npos; }

bool is_link(const std::string& path) {
    struct stat st;
    return lstat(path.c_str(), &st) == 0 && S_ISLNK(st.st_mode);
}

// Waits until the swapper has exchanged `link` at least once (it is a link
// before the first exchange and a folder after it), up to 30 s: the runs
// below must start while the exchanges go on, not before the first one.
bool swapping_started(const std::string& link) {
    for (int i = 0; i < 30000; ++i, usleep(1000))
        if (!is_link(link)) return true;
    return false;
}

std::vector<std::string> env_with_path(const World& w) {
    auto env = oms_world_env(w);
    for (auto& entry : env)
        if (entry.rfind("PATH=", 0) == 0) entry = "PATH=" + w.work + "/bin:/usr/bin:/bin";
    return env;
}

ProcessResult oms_run(const World& w, const std::string& script, int timeout = 60) {
    return run_process({oms_binary(), "run", "--sandbox", "landlock", "--worktree", w.work, "--", "sh", "-c", script},
                       {env_with_path(w), std::nullopt, w.work, timeout});
}

}  // namespace

TEST_CASE("a PATH entry swapped for a link into HOME while runs start opens nothing under HOME",
          "[landlock][listing][swap]") {
    require_landlock();
    World w;
    write_file(w.work + "/bin/hello", "#!/bin/sh\necho HELLO-FROM-BIN\n");
    REQUIRE(chmod((w.work + "/bin/hello").c_str(), 0755) == 0);
    REQUIRE(symlink(w.other_repo.c_str(), (w.work + "/swap").c_str()) == 0);

    // Run 1: the swapper, left running beside the others.
    ProcessResult swapper;
    std::thread first([&] {
        swapper = oms_run(w, expand(w, "{probe} exchange {work} bin swap 25"), 90);
    });
    if (!swapping_started(w.work + "/swap")) {
        first.join();
        FAIL("the swapper never exchanged the folder: " << swapper.out << swapper.err);
    }
    int ran = 0, refused = 0;
    std::string leaked;
    for (int i = 0; i < 40; ++i) {
        auto r = oms_run(w, expand(w, R"SH(
            cat {home}/src/other-repo/main.rs
            echo "src:$(ls -A {home}/src)" > {work}/listing-)SH" + std::to_string(i) + R"SH(
            cp -r {home}/src/other-repo {work}/loot-)SH" + std::to_string(i) + R"SH( 2>/dev/null
            echo RAN)SH"));
        if (has(r.out, "RAN")) ++ran;
        else ++refused;
        if (has(r.out, kOtherRepo)) leaked += "run " + std::to_string(i) + " read main.rs\n";
    }
    first.join();
    INFO(swapper.out << swapper.err);
    REQUIRE(has(swapper.out, "OK swapped"));  // the swapper really ran all along
    // Host side: nothing of the repository reached the worktree, no listing named it.
    for (int i = 0; i < 40; ++i) {
        const std::string listing = w.work + "/listing-" + std::to_string(i);
        if (exists(listing) && has(read_file(listing), "other-repo")) leaked += "run " + std::to_string(i) + " listed it\n";
        if (exists(w.work + "/loot-" + std::to_string(i) + "/main.rs"))
            leaked += "run " + std::to_string(i) + " copied it\n";
    }
    INFO("ran " << ran << ", refused " << refused);
    INFO(leaked);
    CHECK(leaked.empty());
    CHECK(ran > 0);  // runs that saw the folder were not refused wholesale
    // Positive control: the swapper left both names as they were; the PATH
    // entry in the worktree runs its tool, and the repository is intact.
    struct stat st;
    REQUIRE(lstat((w.work + "/bin").c_str(), &st) == 0);
    REQUIRE(S_ISDIR(st.st_mode));
    auto after = oms_run(w, "hello; echo \"src:$(ls -A " + w.home + "/src 2>&1)\"");
    INFO(after.out << after.err);
    CHECK(has(after.out, "HELLO-FROM-BIN"));
    CHECK_FALSE(has(after.out, "other-repo"));
    CHECK(read_file(w.other_repo + "/main.rs") == kOtherRepo);
}

namespace {

ProcessResult oms_run_with(const World& w, const std::vector<std::string>& flags, const std::string& script) {
    std::vector<std::string> argv{oms_binary(), "run", "--sandbox", "landlock", "--worktree", w.work};
    argv.insert(argv.end(), flags.begin(), flags.end());
    for (const std::string& word : {std::string("--"), std::string("sh"), std::string("-c"), script}) argv.push_back(word);
    return run_process(argv, {oms_world_env(w), std::nullopt, w.work, 60});
}

}  // namespace

TEST_CASE("--ro and --rw folders reached through a link run 1 planted in the worktree are refused",
          "[landlock][policy-inputs][swap]") {
    require_landlock();
    World w;
    // Run 1 plants the links; the user (or the agent) later names them.
    auto plant = oms_run_with(w, {}, expand(w, "ln -s {home}/src/other-repo {work}/vendor && ln -s {outside} {work}/out"));
    INFO(plant.out << plant.err);
    REQUIRE(plant.exit_code == 0);
    // Run 2 and 3 strike: read the other repository, write outside the write roots.
    auto read = oms_run_with(w, {"--ro", w.work + "/vendor"},
                             expand(w, "cat {home}/src/other-repo/main.rs; cp -r {home}/src/other-repo {work}/loot"));
    INFO(read.out << read.err);
    CHECK(read.exit_code == 77);
    CHECK(has(read.err, "--ro folder " + w.work + "/vendor goes through the link"));
    CHECK_FALSE(has(read.out, kOtherRepo));
    CHECK_FALSE(exists(w.work + "/loot"));
    auto write = oms_run_with(w, {"--rw", "out"}, expand(w, "echo EVIL > {outside}/file; chmod 777 {outside}/file"));
    INFO(write.out << write.err);
    CHECK(write.exit_code == 77);
    CHECK(has(write.err, "--rw folder out goes through the link"));
    CHECK(read_file(w.outside + "/file") == "OUTSIDE-ORIGINAL");
    struct stat st;
    REQUIRE(stat((w.outside + "/file").c_str(), &st) == 0);
    CHECK((st.st_mode & 07777) != 0777);
    // Positive controls: a link of the user's outside every write root, and
    // a real folder, still work as --ro and --rw.
    REQUIRE(symlink(w.outside.c_str(), (w.root / "outside-link").c_str()) == 0);
    auto ok = oms_run_with(w, {"--ro", w.root / "outside-link", "--rw", w.outside},
                           expand(w, "cat {outside}/file; echo; echo CHANGED > {outside}/file && echo WROTE"));
    INFO(ok.out << ok.err);
    CHECK(ok.exit_code == 0);
    CHECK(has(ok.out, "OUTSIDE-ORIGINAL"));
    CHECK(has(ok.out, "WROTE"));
    CHECK(read_file(w.outside + "/file") == "CHANGED\n");
}

TEST_CASE("a worktree reached through a link another task's command planted is refused",
          "[landlock][policy-inputs][swap]") {
    require_landlock();
    World w;
    // Task A works in the repository w.work; its command makes a subfolder a
    // link to another repository under HOME. Task B is given that subfolder.
    auto plant = oms_run_with(w, {}, expand(w, "mkdir -p {work}/packages && ln -s {home}/src/other-repo {work}/packages/x"));
    INFO(plant.out << plant.err);
    REQUIRE(plant.exit_code == 0);
    auto strike = run_process({oms_binary(), "run", "--sandbox", "landlock", "--worktree", w.work + "/packages/x", "--",
                               "sh", "-c", "cat main.rs; echo EVIL > planted"},
                              {oms_world_env(w), std::nullopt, w.root.path(), 60});
    INFO(strike.out << strike.err);
    CHECK(strike.exit_code == 77);
    CHECK(has(strike.err, "goes through the link " + w.work + "/packages/x inside the repository " + w.work));
    CHECK_FALSE(has(strike.out, kOtherRepo));
    CHECK_FALSE(exists(w.other_repo + "/planted"));
    CHECK(read_file(w.other_repo + "/main.rs") == kOtherRepo);
    // Positive control: the user's own link to a worktree, outside every
    // repository and temp folder, still works.
    REQUIRE(symlink(w.work.c_str(), (w.root / "work-link").c_str()) == 0);
    auto ok = run_process({oms_binary(), "run", "--sandbox", "landlock", "--worktree", w.root / "work-link", "--", "sh",
                           "-c", "cat README; echo; echo OK > written"},
                          {oms_world_env(w), std::nullopt, w.root.path(), 60});
    INFO(ok.out << ok.err);
    CHECK(ok.exit_code == 0);
    CHECK(has(ok.out, "WORKTREE-README"));
    CHECK(read_file(w.work + "/written") == "OK\n");
}

TEST_CASE("a worktree swapped for a link while runs start is refused, never followed", "[landlock][swap]") {
    require_landlock();
    World w;
    // Task A's command exchanges <repo>/packages/x (a folder) with a link to
    // another repository under HOME as fast as it can; task B starts 30 runs
    // in packages/x meanwhile.
    write_file(w.work + "/packages/x/README", "PACKAGE-X");
    REQUIRE(symlink(w.other_repo.c_str(), (w.work + "/packages/y").c_str()) == 0);
    ProcessResult swapper;
    std::thread first([&] {
        swapper = oms_run_with(w, {}, expand(w, "{probe} exchange {work}/packages x y 15"));
    });
    if (!swapping_started(w.work + "/packages/y")) {
        first.join();
        FAIL("the swapper never exchanged the folder: " << swapper.out << swapper.err);
    }
    int ran = 0;
    std::string leaked, unexplained;
    for (int i = 0; i < 30; ++i) {
        const std::string n = std::to_string(i);
        auto r = run_process({oms_binary(), "run", "--sandbox", "landlock", "--worktree", w.work + "/packages/x", "--",
                              "sh", "-c", "cat main.rs; echo B > planted-" + n + "; echo RAN"},
                             {oms_world_env(w), std::nullopt, w.root.path(), 60});
        if (has(r.out, "RAN")) ++ran;
        // Every other run stopped before the command, saying why.
        else if (!has(r.err, "goes through the link") && !has(r.err, "being swapped") &&
                 !has(r.err, "a link appeared in its path"))
            unexplained += "run " + n + ": " + r.err + "\n";
        if (has(r.out, kOtherRepo)) leaked += "run " + n + " read main.rs\n";
    }
    first.join();
    INFO(swapper.out << swapper.err);
    REQUIRE(has(swapper.out, "OK swapped"));
    // Host side: the other repository holds only what it held.
    for (const auto& entry : fs::directory_iterator(w.other_repo))
        if (entry.path().filename() != "main.rs") leaked += "found " + entry.path().string() + "\n";
    INFO("ran " << ran);
    INFO(leaked);
    CHECK(leaked.empty());
    CHECK(read_file(w.other_repo + "/main.rs") == kOtherRepo);
    INFO(unexplained);
    CHECK(unexplained.empty());
    // Positive control: once the swapping stops, task B runs in its folder
    // and its write reaches the host there.
    auto after = run_process({oms_binary(), "run", "--sandbox", "landlock", "--worktree", w.work + "/packages/x", "--",
                              "sh", "-c", "cat README; echo; echo AFTER > after"},
                             {oms_world_env(w), std::nullopt, w.root.path(), 60});
    INFO(after.out << after.err);
    CHECK(after.exit_code == 0);
    CHECK(has(after.out, "PACKAGE-X"));
    CHECK(read_file(w.work + "/packages/x/after") == "AFTER\n");
}
