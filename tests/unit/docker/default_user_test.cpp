// The container user when none is configured: the worktree's owner, never root.
#include "default_user.hpp"

#include "temp_dir.hpp"

#include <unistd.h>

#include <catch2/catch.hpp>

using namespace oms::docker;
using oms::test::TempDir;

TEST_CASE("the default container user is the worktree's owner, and never root") {
    TempDir root("oms-default-user");
    const std::string worktree = root.path();
    CHECK(default_user_for("/") == "65534:65534");  // root owns it: never root in the container
    // Owners other than ourselves need root: as another user, our own uid is the case to check.
    if (geteuid() != 0) {
        CHECK(default_user_for(worktree) == std::to_string(getuid()) + ":" + std::to_string(getgid() ? getgid() : getuid()));
        return;
    }
    REQUIRE(chown(worktree.c_str(), 1234, 5678) == 0);
    CHECK(default_user_for(worktree) == "1234:5678");
    REQUIRE(chown(worktree.c_str(), 1234, 0) == 0);
    CHECK(default_user_for(worktree) == "1234:1234");  // group 0 is refused: the uid's number instead
    REQUIRE(chown(worktree.c_str(), 0, 0) == 0);
    CHECK(default_user_for(worktree) == "65534:65534");
    CHECK(default_user_for(worktree + "/missing") == "65534:65534");
}
