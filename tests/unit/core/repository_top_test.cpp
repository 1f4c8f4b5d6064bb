// The repository's top level above a folder, and where the search stops.
#include "oms/core/repository_top.hpp"
#include "oms/core/worktree_default.hpp"

#include "temp_dir.hpp"

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>

using namespace oms::core;
using oms::test::make_dirs;
using oms::test::write_file;

namespace {

// HOME is set for the test and put back afterwards.
struct HomeFor {
    std::string saved;
    bool had;
    explicit HomeFor(const std::string& home) {
        const char* old = std::getenv("HOME");
        had = old != nullptr;
        if (old) saved = old;
        setenv("HOME", home.c_str(), 1);
    }
    ~HomeFor() { had ? setenv("HOME", saved.c_str(), 1) : unsetenv("HOME"); }
};

}  // namespace

TEST_CASE("repository_top: a .git folder or file above, never a link, never HOME or above") {
    oms::test::TempDir root("repo-top");
    const std::string home = root / "home";
    HomeFor scoped(home);
    make_dirs(home + "/repo/.git");
    make_dirs(home + "/repo/a/b");
    write_file(home + "/linked/.git", "gitdir: /elsewhere\n");
    make_dirs(home + "/linked/src");
    make_dirs(home + "/plain/x");
    make_dirs(home + "/.git");  // a dotfiles repository in HOME
    make_dirs(home + "/linkrepo/sub");
    std::filesystem::create_directory_symlink(home + "/repo/.git", home + "/linkrepo/.git");

    CHECK(repository_top(home + "/repo/a/b") == home + "/repo");
    CHECK(repository_top(home + "/repo") == home + "/repo");
    CHECK(repository_top(home + "/linked/src") == home + "/linked");
    CHECK_FALSE(repository_top(home + "/plain/x"));     // stops at HOME, whose .git is never taken
    CHECK_FALSE(repository_top(home + "/linkrepo/sub"));  // a .git link is not a repository marker
    CHECK(subfolder_note(home + "/repo/a/b").value_or("").find("a subfolder of the repository " + home + "/repo") !=
          std::string::npos);
    CHECK_FALSE(subfolder_note(home + "/repo"));
}

TEST_CASE("default_worktree: the repository's top, the command starting where the user is") {
    oms::test::TempDir root("worktree-default");
    const std::string home = root / "home";
    HomeFor scoped(home);
    make_dirs(home + "/repo/.git");
    make_dirs(home + "/repo/a/b");
    make_dirs(home + "/plain/x");
    make_dirs(home + "/.git");
    // A repository holding oms's own config folder may not be a worktree.
    make_dirs(home + "/dotrepo/.git");
    make_dirs(home + "/dotrepo/sub");
    make_dirs(home + "/dotrepo/config/oms");
    const char* old_config = std::getenv("XDG_CONFIG_HOME");
    const std::string saved_config = old_config ? old_config : "";
    setenv("XDG_CONFIG_HOME", (home + "/dotrepo/config").c_str(), 1);

    const WorktreeChoice sub = default_worktree(home + "/repo/a/b");
    CHECK(sub.worktree == home + "/repo");
    CHECK(sub.working_dir == home + "/repo/a/b");
    CHECK(worktree_line(sub).value_or("").find("worktree: " + home + "/repo (") != std::string::npos);
    const WorktreeChoice top = default_worktree(home + "/repo");
    CHECK(top.worktree == home + "/repo");
    CHECK(top.working_dir == home + "/repo");
    CHECK_FALSE(worktree_line(top));
    // Outside a repository, or below HOME's own .git: the current folder, as before.
    CHECK(default_worktree(home + "/plain/x").worktree == home + "/plain/x");
    CHECK_FALSE(worktree_line(default_worktree(home + "/plain/x")));
    CHECK(default_worktree(home + "/dotrepo/sub").worktree == home + "/dotrepo/sub");

    old_config ? setenv("XDG_CONFIG_HOME", saved_config.c_str(), 1) : unsetenv("XDG_CONFIG_HOME");
}
