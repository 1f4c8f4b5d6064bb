// The SDK's lexical path helpers (oms/path.hpp), one table per function: each
// row is an input and the answer every caller in core, the backends and the
// policies relies on, edge cases first.
#include <oms/path.hpp>

#include <catch2/catch.hpp>

#include <optional>
#include <string>
#include <vector>

namespace path = oms::sdk::path;

namespace {

struct Containment {
    const char* path;
    const char* root;
    bool inside;          // is_inside(path, root)
    bool strictly_below;  // is_strictly_below(path, root)
};

// clang-format off
const Containment kContainment[] = {
    // empty strings are never inside anything, nor hold anything
    {"", "", false, false},
    {"", "/", false, false},
    {"/a", "", false, false},
    // "/" holds every absolute path, itself included
    {"/", "/", true, false},
    {"/a", "/", true, true},
    {"/a/b", "/", true, true},
    {"/", "/a", false, false},
    // the root itself, and below it
    {"/a/b", "/a/b", true, false},
    {"/a/b/c", "/a/b", true, true},
    {"/a/b/c/d", "/a/b", true, true},
    {"/a", "/a/b", false, false},
    // a sibling with a common prefix is outside
    {"/a/b-c", "/a/b", false, false},
    {"/a/bc", "/a/b", false, false},
    {"/a/b-c/d", "/a/b", false, false},
    {"/ab", "/a", false, false},
    // trailing and doubled slashes and "." are insignificant
    {"/a/b/", "/a/b", true, false},
    {"/a/b", "/a/b/", true, false},
    {"/a/b/c", "/a/b/", true, true},
    {"/a//b/c", "/a/b", true, true},
    {"/a/b", "//a//b//", true, false},
    {"/a/./b/c", "/a/b", true, true},
    {"/a/b/.", "/a/b", true, false},
    {"//", "/", true, false},
    // ".." is never resolved: false rather than a guess
    {"/a/b/../c", "/a/b", false, false},
    {"/a/b/..", "/a/b", false, false},
    {"/a/../a/b", "/a", false, false},
    {"/a/b", "/a/c/..", false, false},
    {"/a/..b", "/a", true, true},  // "..b" is a name, not ".."
    // relative paths and roots name nothing without a working folder
    {"a/b", "a", false, false},
    {"a", "/", false, false},
    {"/a/b", "a", false, false},
    {".", ".", false, false},
};
// clang-format on

struct Parent {
    const char* path;
    const char* parent;
};

// clang-format off
const Parent kParents[] = {
    {"/", "/"},
    {"/a", "/"},
    {"/a/b", "/a"},
    {"/a/b/c", "/a/b"},
    {"/a/b/", "/a"},        // a trailing slash names the same folder
    {"/a//b", "/a"},        // slashes before the last component go too
    {"/a/b//", "/a"},
    {"//a", "/"},
    {"//", "/"},
    {"/a/..", "/a"},        // not resolved: the last component is dropped
    {"/a/.", "/a"},
    {"a/b", "a"},
    {"a", "."},
    {"a/", "."},
    {"", "."},
};
// clang-format on

struct Normal {
    const char* path;
    std::optional<std::string> normal;  // normalize(path); is_normal when it equals path
};

const Normal kNormals[] = {
    {"", std::nullopt},
    {"/", "/"},
    {"//", "/"},
    {"///", "/"},
    {"/a", "/a"},
    {"/a/", "/a"},
    {"/a//b", "/a/b"},
    {"//a//b//", "/a/b"},
    {"/a/./b", "/a/b"},
    {"/./", "/"},
    {"/a/.", "/a"},
    {"/a/../b", std::nullopt},  // ".." is reported, not resolved
    {"/..", std::nullopt},
    {"a/..", std::nullopt},
    {"..", std::nullopt},
    {"/a/..b/c.", "/a/..b/c."},  // names that only begin or end with dots
    {"/a/.b", "/a/.b"},
    {"a", "a"},
    {"a/b/", "a/b"},
    {"./a", "a"},
    {".", "."},
    {"./", "."},
};

}  // namespace

TEST_CASE("is_absolute: a leading slash, and nothing for an empty string", "[sdk][path]") {
    CHECK(path::is_absolute("/"));
    CHECK(path::is_absolute("/a/b"));
    CHECK(path::is_absolute("//a"));
    CHECK_FALSE(path::is_absolute(""));
    CHECK_FALSE(path::is_absolute("a/b"));
    CHECK_FALSE(path::is_absolute("./a"));
    CHECK_FALSE(path::is_absolute("~/a"));
}

TEST_CASE("is_inside and is_strictly_below compare whole components", "[sdk][path]") {
    for (const Containment& row : kContainment) {
        INFO("path '" << row.path << "', root '" << row.root << "'");
        CHECK(path::is_inside(row.path, row.root) == row.inside);
        CHECK(path::is_strictly_below(row.path, row.root) == row.strictly_below);
    }
}

TEST_CASE("is_inside_any: inside one root of the list, none for an empty list", "[sdk][path]") {
    const std::vector<std::string> roots{"/a/b", "/c", ""};
    CHECK(path::is_inside_any("/a/b/x", roots));
    CHECK(path::is_inside_any("/c", roots));
    CHECK_FALSE(path::is_inside_any("/a/b-c", roots));
    CHECK_FALSE(path::is_inside_any("/d", roots));  // the empty root holds nothing
    CHECK_FALSE(path::is_inside_any("", roots));
    CHECK_FALSE(path::is_inside_any("/a/b", std::vector<std::string>{}));
    const char* const views[] = {"/", "/x"};
    CHECK(path::is_inside_any("/anything", views));
    CHECK_FALSE(path::is_inside_any("relative", views));
}

TEST_CASE("parent_of works like dirname, \"/\" for the root and its entries", "[sdk][path]") {
    for (const Parent& row : kParents) {
        INFO("path '" << row.path << "'");
        CHECK(path::parent_of(row.path) == row.parent);
    }
}

TEST_CASE("normalize collapses slashes and \".\", reports \"..\"; is_normal agrees", "[sdk][path]") {
    for (const Normal& row : kNormals) {
        INFO("path '" << row.path << "'");
        CHECK(path::normalize(row.path) == row.normal);
        CHECK(path::is_normal(row.path) == (row.normal && *row.normal == row.path));
    }
    // a normal path is its own normal form (normalize is idempotent)
    for (const Normal& row : kNormals)
        if (row.normal) CHECK(path::normalize(*row.normal) == row.normal);
}
