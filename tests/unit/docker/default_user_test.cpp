// The container user when none is configured: the worktree's owner, never
// root; a worktree root owns is refused with what to set.
#include "default_user.hpp"

#include "temp_dir.hpp"

#include <oms/sdk.hpp>

#include <unistd.h>

#include <catch2/catch.hpp>

using namespace oms::docker;
using oms::test::TempDir;

namespace {

std::string user_for(const std::string& worktree) { return default_user_for(worktree, OMS_ERR_FAILED); }

void check_refused(const std::string& worktree) {
    try {
        user_for(worktree);
        FAIL("no refusal for " << worktree);
    } catch (const oms::sdk::Error& e) {
        CHECK(e.status() == OMS_ERR_FAILED);
        CHECK_THAT(e.what(), Catch::Contains("belongs to root") && Catch::Contains("[plugin.docker] user"));
    }
}

}  // namespace

TEST_CASE("the default container user is the worktree's owner; a worktree root owns is refused") {
    TempDir root("oms-default-user");
    const std::string worktree = root.path();
    check_refused("/");  // root owns it: never root in the container, and nobody could not write it
    // Owners other than ourselves need root: as another user, our own uid is the case to check.
    if (geteuid() != 0) {
        CHECK(user_for(worktree) == std::to_string(getuid()) + ":" + std::to_string(getgid() ? getgid() : getuid()));
        return;
    }
    REQUIRE(chown(worktree.c_str(), 1234, 5678) == 0);
    CHECK(user_for(worktree) == "1234:5678");
    REQUIRE(chown(worktree.c_str(), 1234, 0) == 0);
    CHECK(user_for(worktree) == "1234:1234");  // group 0 is refused: the uid's number instead
    REQUIRE(chown(worktree.c_str(), 0, 0) == 0);
    check_refused(worktree);
    check_refused(worktree + "/missing");
}
