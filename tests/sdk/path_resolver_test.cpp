// oms/path_resolver.hpp answers as realpath(3) does, on a tree made of the
// cases that trip a resolver up: relative and absolute links, chains, links
// to "..", a loop, a dangling link, "file/..", "/..", missing components and
// a folder without the right to look in. Each path is asked twice of one
// resolver (the second answer comes from what it remembers) and once of
// libc; all three must agree.
#include <oms/path_resolver.hpp>

#include <catch2/catch.hpp>

#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <optional>
#include <string>

namespace fs = std::filesystem;

namespace {

std::optional<std::string> libc_real_path(const std::string& path) {
    char out[PATH_MAX];
    if (::realpath(path.c_str(), out) == nullptr) return std::nullopt;
    return std::string(out);
}

struct LinkTree {
    std::string root;

    LinkTree() {
        char pattern[] = "/tmp/oms-path-resolver-XXXXXX";
        REQUIRE(mkdtemp(pattern) != nullptr);
        root = pattern;
        fs::create_directories(root + "/real/deep/er");
        fs::create_directories(root + "/other");
        { FILE* f = fopen((root + "/real/file").c_str(), "w"); REQUIRE(f); fclose(f); }
        { FILE* f = fopen((root + "/real/deep/er/leaf").c_str(), "w"); REQUIRE(f); fclose(f); }
        fs::create_symlink("real", root + "/rel");                  // relative
        fs::create_symlink(root + "/real", root + "/abs");          // absolute
        fs::create_symlink("rel", root + "/chain");                 // link to a link
        fs::create_symlink("../other", root + "/real/up");          // ".." in a target
        fs::create_symlink("deep/er/leaf", root + "/real/to-leaf");  // a file through folders
        fs::create_symlink("loop-b", root + "/loop-a");
        fs::create_symlink("loop-a", root + "/loop-b");
        fs::create_symlink("nowhere", root + "/dangling");
        fs::create_symlink("/", root + "/slash");
        fs::create_directories(root + "/closed/inside");
        fs::create_symlink("file/", root + "/real/file-slash");  // a file asked for as a folder
        fs::create_symlink("file", root + "/real/file-link");
        fs::create_symlink("deep/", root + "/real/deep-slash");
    }
    ~LinkTree() {
        chmod((root + "/closed").c_str(), 0755);
        std::error_code ignored;
        fs::remove_all(root, ignored);
    }
};

}  // namespace

TEST_CASE("a path resolver answers as realpath does, asked once or again") {
    LinkTree tree;
    const std::string r = tree.root;
    const std::string paths[] = {
        "/", "/..", "/../..", "/.", "//", r, r + "/real", r + "/rel", r + "/abs", r + "/chain", r + "/chain/deep/er",
        r + "/rel/up", r + "/rel/up/..", r + "/real/to-leaf", r + "/abs/deep/../file", r + "/real/file",
        r + "/real/file/..",   // ENOTDIR in realpath
        r + "/real/file/x",    // ENOTDIR
        r + "/real/missing",   // ENOENT
        r + "/missing/..",     // ENOENT
        r + "/loop-a",         // ELOOP
        r + "/dangling",       // ENOENT through a link
        r + "/slash/usr/..", r + "/./real/./deep", r + "//real//deep", r + "/rel/deep/er/leaf",
        r + "/closed/inside",
        // a trailing "/" or "/." asks for a folder: ENOTDIR after a file
        r + "/real/file/", r + "/real/file/.", r + "/real/file//.", r + "/real/file-slash", r + "/real/file-link/.",
        r + "/real/file-link/", r + "/real/file-link", r + "/real/deep-slash", r + "/real/deep-slash/er",
        r + "/rel/", r + "/rel/.", r + "/real/deep/", r + "/real/deep//", r + "/real/../real/", r + "/real/deep/..",
    };
    oms::sdk::PathResolver resolver;
    for (const auto& path : paths) {
        INFO(path);
        const auto expected = libc_real_path(path);
        CHECK(resolver.real_path(path) == expected);
        CHECK(resolver.real_path(path) == expected);  // from what it remembers
    }
    // Positive control: the cases above do resolve where they should.
    CHECK(resolver.real_path(r + "/chain/deep/er/leaf") == r + "/real/deep/er/leaf");
    CHECK(resolver.real_path(r + "/rel/up") == r + "/other");
    CHECK_FALSE(resolver.real_path(r + "/real/file/..").has_value());
    CHECK_FALSE(resolver.real_path(r + "/real/file-slash").has_value());
    CHECK(resolver.real_path(r + "/real/deep-slash") == r + "/real/deep");
}

TEST_CASE("a path resolver fails where realpath has no right to look") {
    if (geteuid() == 0) {
        // root reads a 0 folder all the same; realpath and the resolver agree there.
        LinkTree tree;
        chmod((tree.root + "/closed").c_str(), 0);
        oms::sdk::PathResolver resolver;
        CHECK(resolver.real_path(tree.root + "/closed/inside") == libc_real_path(tree.root + "/closed/inside"));
        return;
    }
    LinkTree tree;
    REQUIRE(chmod((tree.root + "/closed").c_str(), 0) == 0);
    oms::sdk::PathResolver resolver;
    CHECK_FALSE(libc_real_path(tree.root + "/closed/inside").has_value());
    CHECK_FALSE(resolver.real_path(tree.root + "/closed/inside").has_value());
    CHECK(resolver.real_path(tree.root + "/closed") == tree.root + "/closed");  // the folder itself is there
}

TEST_CASE("relative paths are realpath's own answer") {
    LinkTree tree;
    oms::sdk::PathResolver resolver;
    char here[PATH_MAX];
    REQUIRE(getcwd(here, sizeof here));
    REQUIRE(chdir(tree.root.c_str()) == 0);
    CHECK(resolver.real_path("chain/deep") == tree.root + "/real/deep");
    REQUIRE(chdir(here) == 0);
    CHECK_FALSE(resolver.real_path("").has_value());
}

TEST_CASE("what a resolver remembers is its own: a new one sees a change") {
    LinkTree tree;
    oms::sdk::PathResolver before;
    REQUIRE(before.real_path(tree.root + "/rel") == tree.root + "/real");
    fs::remove(tree.root + "/rel");
    fs::create_symlink("other", tree.root + "/rel");
    oms::sdk::PathResolver after;
    CHECK(after.real_path(tree.root + "/rel") == tree.root + "/other");
}
