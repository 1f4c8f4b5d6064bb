// The landlock planner's path helpers: which roots are outermost (each is
// mounted once; a nested one mounted again would stack a second mount).
#include "path_utils.hpp"

#include <catch2/catch.hpp>

using oms::landlock::is_within;
using oms::landlock::outermost;
using Paths = std::vector<std::string>;

TEST_CASE("is_within: a folder holds its own path and the paths below it, not a sibling with its prefix",
          "[landlock][unit]") {
    CHECK(is_within("/a/b", "/a/b"));
    CHECK(is_within("/a/b/c", "/a/b"));
    CHECK_FALSE(is_within("/a/b-c", "/a/b"));
    CHECK_FALSE(is_within("/a/bc", "/a/b"));
    CHECK(is_within("/anything", "/"));
}

TEST_CASE("outermost: a root inside another is dropped even when a sibling with its prefix sorts between",
          "[landlock][unit]") {
    CHECK(outermost({"/a/b/c", "/a/b-c", "/a/b"}) == Paths{"/a/b", "/a/b-c"});
    CHECK(outermost({"/w/x.y/z", "/w/x", "/w/x.y", "/w/x/q"}) == Paths{"/w/x", "/w/x.y"});
    CHECK(outermost({"/t", "/t", "/u"}) == Paths{"/t", "/u"});  // duplicates once
    CHECK(outermost({"/p/q", "/"}) == Paths{"/"});
    CHECK(outermost({}).empty());
}
