// The private HOME's links to the scratch trees under the real HOME: made
// below the private HOME without following a link on the way, so a way that
// is a link already (the private HOME's .cargo -> ~/.cargo) is left alone and
// nothing is made in the real HOME through it.
#include "scratch_home_links.hpp"

#include "temp_dir.hpp"

#include <catch2/catch.hpp>

#include <filesystem>

namespace fs = std::filesystem;
using oms::landlock::link_scratch_trees_into_private_home;

TEST_CASE("scratch trees under HOME are linked into the private HOME, never through a link on the way") {
    oms::test::TempDir base("oms-scratch-links");
    const std::string home = fs::canonical(base.path()).string() + "/home";
    const std::string priv = fs::canonical(base.path()).string() + "/private";
    fs::create_directories(home + "/.npm/_cacache");
    fs::create_directories(home + "/.npm/_npx");
    fs::create_directories(home + "/.cargo/registry/src");
    fs::create_directories(priv);
    fs::create_directory_symlink(home + "/.cargo", priv + "/.cargo");  // as the core links toolchains
    const std::string outside = fs::canonical(base.path()).string() + "/elsewhere";
    fs::create_directories(outside);

    const auto problems = link_scratch_trees_into_private_home(
        home, priv, {home + "/.npm/_cacache", home + "/.npm/_npx", home + "/.cargo/registry/src", outside, home});
    CHECK(problems.empty());
    CHECK(fs::read_symlink(priv + "/.npm/_cacache") == home + "/.npm/_cacache");
    CHECK(fs::read_symlink(priv + "/.npm/_npx") == home + "/.npm/_npx");
    CHECK(fs::is_directory(fs::symlink_status(priv + "/.npm")));
    // Through the .cargo link nothing was made, in the real HOME least of all.
    CHECK(fs::is_empty(home + "/.cargo/registry/src"));
    CHECK_FALSE(fs::is_symlink(home + "/.cargo/registry/src"));
    // Outside HOME, and HOME itself, get no link.
    CHECK_FALSE(fs::exists(fs::symlink_status(priv + "/elsewhere")));
    CHECK(fs::directory_iterator(priv) != fs::directory_iterator());
    std::size_t entries = 0;
    for (const auto& entry : fs::directory_iterator(priv)) entries += entry.path().filename() == ".npm" ? 0 : 1;
    CHECK(entries == 1);  // .cargo only

    SECTION("an entry already there is left as it is") {
        const auto again = link_scratch_trees_into_private_home(home, priv, {home + "/.npm/_cacache"});
        CHECK(again.empty());
        CHECK(fs::read_symlink(priv + "/.npm/_cacache") == home + "/.npm/_cacache");
    }
}
