// The landlock planner's path helpers: which roots are outermost (each is
// mounted once; a nested one mounted again would stack a second mount).
// Containment itself is the SDK's (oms/path.hpp, tests/sdk/path_test.cpp).
#include "path_utils.hpp"

#include <catch2/catch.hpp>

using oms::landlock::outermost;
using Paths = std::vector<std::string>;

TEST_CASE("outermost: a root inside another is dropped even when a sibling with its prefix sorts between",
          "[landlock][unit]") {
    CHECK(outermost({"/a/b/c", "/a/b-c", "/a/b"}) == Paths{"/a/b", "/a/b-c"});
    CHECK(outermost({"/w/x.y/z", "/w/x", "/w/x.y", "/w/x/q"}) == Paths{"/w/x", "/w/x.y"});
    CHECK(outermost({"/t", "/t", "/u"}) == Paths{"/t", "/u"});  // duplicates once
    CHECK(outermost({"/p/q", "/"}) == Paths{"/"});
    CHECK(outermost({}).empty());
}
