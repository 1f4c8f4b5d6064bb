// `oms run` from a subfolder of a repository without --worktree (issue 10,
// item 5): the worktree is the repository's top level, the command starts in
// the subfolder, and oms names the worktree on stderr. The repository lies
// under HOME, where nothing outside the worktree is readable, so reading
// `../README.md` from the subfolder is the real test of the widening; the
// same read with --worktree naming the subfolder is denied (control). The
// search stops at HOME: a dotfiles repository in HOME is never taken.
#include "test_support.hpp"

#include "process.hpp"

#include <map>
#include <unistd.h>

using namespace oms::test;

namespace {

std::map<std::string, std::string> oms_env(World& w) {
    return {{"HOME", w.home},
            {"XDG_CONFIG_HOME", w.root / "xdg-config"},
            {"XDG_STATE_HOME", w.root / "xdg-state"},
            {"PATH", "/usr/bin:/bin"}};
}

ProcessResult run_from(World& w, const std::string& cwd, const std::vector<std::string>& extra,
                       const std::string& script) {
    std::vector<std::string> argv{oms_binary(), "run", "--sandbox", "landlock"};
    argv.insert(argv.end(), extra.begin(), extra.end());
    for (const char* tail : {"--", "/bin/sh", "-c"}) argv.emplace_back(tail);
    argv.push_back(script);
    return run_process(argv, {environment_with(oms_env(w)), std::nullopt, cwd, 60});
}

// A real repository (git init on the host) below HOME, with a README at its
// top and a subfolder.
std::string plant_repository(World& w) {
    const std::string top = w.home + "/src/project";
    make_dirs(top + "/app/src");
    write_file(top + "/README.md", "TOP-README\n");
    ProcessResult init = run_process({"/usr/bin/git", "init", "-q", top}, {environment_with(oms_env(w)), std::nullopt, top, 30});
    REQUIRE(init.exit_code == 0);
    return top;
}

const std::string kScript = "pwd; cat ../README.md; git rev-parse --show-toplevel; echo WRITTEN > ../from-sub.txt";

}  // namespace

TEST_CASE("oms run from a repository's subfolder: the worktree is the top, the command starts where it was",
          "[landlock][worktree-default]") {
    require_landlock();
    World w;
    const std::string top = plant_repository(w);
    const std::string sub = top + "/app";

    ProcessResult run = run_from(w, sub, {}, kScript);
    INFO(run.out << run.err);
    CHECK(run.exit_code == 0);
    CHECK(run.out == sub + "\nTOP-README\n" + top + "\n");  // pwd, ../README.md, git's top level
    CHECK(read_file(top + "/from-sub.txt") == "WRITTEN\n");    // host side: the top is writable
    CHECK(run.err.find("oms: worktree: " + top + " (the repository holding the current folder; the command starts in " +
                       sub + ")") != std::string::npos);

    // From the top: the same worktree, and no line.
    ProcessResult at_top = run_from(w, top, {}, "pwd");
    INFO(at_top.out << at_top.err);
    CHECK(at_top.exit_code == 0);
    CHECK(at_top.out == top + "\n");
    CHECK(at_top.err.find("oms: worktree:") == std::string::npos);

    // --worktree given: unchanged, the command starts in it and the rest of
    // the repository stays out of reach (host side: nothing written above).
    ProcessResult given = run_from(w, sub, {"--worktree", sub}, "pwd; cat ../README.md; echo X > ../given.txt");
    INFO(given.out << given.err);
    CHECK(given.exit_code != 0);
    CHECK(given.out == sub + "\n");
    CHECK(given.out.find("TOP-README") == std::string::npos);
    CHECK(access((top + "/given.txt").c_str(), F_OK) != 0);
    CHECK(given.err.find("oms: worktree:") == std::string::npos);
}

TEST_CASE("a repository whose top would be HOME keeps the current folder as the worktree",
          "[landlock][worktree-default]") {
    require_landlock();
    World w;
    // A .git in HOME (dotfiles) is never taken: the search stops at HOME.
    make_dirs(w.home + "/.git");
    make_dirs(w.home + "/project/sub");
    write_file(w.home + "/project/README.md", "PROJECT-README\n");
    ProcessResult dotfiles = run_from(w, w.home + "/project/sub", {}, "pwd; cat ../README.md");
    INFO(dotfiles.out << dotfiles.err);
    CHECK(dotfiles.out.find(w.home + "/project/sub\n") == 0);
    CHECK(dotfiles.out.find("PROJECT-README") == std::string::npos);  // the worktree is the subfolder alone
    CHECK(dotfiles.err.find("oms: worktree:") == std::string::npos);
    // Control: from the folder itself the file reads.
    ProcessResult control = run_from(w, w.home + "/project", {}, "cat README.md");
    INFO(control.out << control.err);
    CHECK(control.exit_code == 0);
    CHECK(control.out == "PROJECT-README\n");
}

// The backend's own check (the core refuses the same, but a backend must not
// trust it): a working folder outside the worktree, or a link inside it that
// leads out, stops the run before the command starts.
TEST_CASE("landlock starts the command in working_dir, never outside the worktree", "[landlock][worktree-default]") {
    require_landlock();
    World w;
    RunOptions inside;
    inside.working_dir = w.work + "/nested";
    RunOutcome ran = run_in_plugin(w, "pwd; cat ../README", inside);
    INFO(ran.spawn_error << ran.out << ran.err);
    CHECK(ran.spawn_status == OMS_OK);
    CHECK(ran.out == w.work + "/nested\nWORKTREE-README");  // positive control

    RunOptions outside;
    outside.working_dir = w.outside;
    RunOutcome refused = run_in_plugin(w, "echo RAN", outside);
    INFO(refused.spawn_error << refused.out << refused.err);
    CHECK(refused.spawn_status != OMS_OK);
    CHECK_THAT(refused.spawn_error, Catch::Contains("is not inside the worktree"));
    CHECK(refused.out.find("RAN") == std::string::npos);

    // A link a previous command planted in the worktree, named as the
    // working folder: resolved beneath the worktree, it cannot be entered.
    REQUIRE(symlink(w.outside.c_str(), (w.work + "/escape").c_str()) == 0);
    RunOptions through_link;
    through_link.working_dir = w.work + "/escape";
    RunOutcome linked = run_in_plugin(w, "echo RAN; pwd", through_link);
    INFO(linked.spawn_error << linked.out << linked.err);
    CHECK(linked.out.find("RAN") == std::string::npos);
    CHECK((linked.spawn_status != OMS_OK || linked.exit_code != 0));
}
