// `oms run` from a subfolder of a repository without --worktree (issue 10,
// item 5, first half): the worktree stays the current folder (the backends
// run the command in the worktree, so widening it would move the command),
// and oms says on stderr that the folder is a subfolder of the repository
// and what to pass. The search stops at HOME: a dotfiles repository in HOME
// is never proposed.
#include "test_support.hpp"

#include "process.hpp"

#include <map>

using namespace oms::test;

namespace {

ProcessResult run_from(World& w, const std::string& cwd, const std::vector<std::string>& extra,
                       const std::string& script) {
    const std::map<std::string, std::string> env{{"HOME", w.home},
                                                 {"XDG_CONFIG_HOME", w.root / "xdg-config"},
                                                 {"XDG_STATE_HOME", w.root / "xdg-state"},
                                                 {"PATH", "/usr/bin:/bin"}};
    std::vector<std::string> argv{oms_binary(), "run", "--sandbox", "landlock"};
    argv.insert(argv.end(), extra.begin(), extra.end());
    for (const char* tail : {"--", "/bin/sh", "-c"}) argv.emplace_back(tail);
    argv.push_back(script);
    return run_process(argv, {environment_with(env), std::nullopt, cwd, 60});
}

}  // namespace

TEST_CASE("oms run from a repository's subfolder names the repository's top level", "[landlock][worktree-default]") {
    require_landlock();
    World w;  // w.work holds .git
    const std::string sub = w.work + "/nested";
    ProcessResult run = run_from(w, sub, {}, "pwd; echo OK > written.txt");
    INFO(run.out << run.err);
    CHECK(run.exit_code == 0);
    CHECK(run.out == sub + "\n");  // the command runs where it was started
    CHECK(read_file(sub + "/written.txt") == "OK\n");
    CHECK(run.err.find("oms: the worktree is the current folder " + sub + ", a subfolder of the repository " + w.work +
                       ": ") != std::string::npos);
    CHECK(run.err.find("Pass --worktree " + w.work) != std::string::npos);

    // Quiet from the top level, and when --worktree is given.
    ProcessResult top = run_from(w, w.work, {}, "pwd");
    INFO(top.out << top.err);
    CHECK(top.out == w.work + "\n");
    CHECK(top.err.find("a subfolder of the repository") == std::string::npos);
    ProcessResult given = run_from(w, sub, {"--worktree", sub}, "pwd");
    INFO(given.out << given.err);
    CHECK(given.exit_code == 0);
    CHECK(given.err.find("a subfolder of the repository") == std::string::npos);

    // A .git in HOME (dotfiles) is never proposed: the search stops at HOME.
    make_dirs(w.home + "/.git");
    make_dirs(w.home + "/project");
    ProcessResult dotfiles = run_from(w, w.home + "/project", {}, "pwd");
    INFO(dotfiles.out << dotfiles.err);
    CHECK(dotfiles.exit_code == 0);
    CHECK(dotfiles.out == w.home + "/project\n");
    CHECK(dotfiles.err.find("a subfolder of the repository") == std::string::npos);
}
