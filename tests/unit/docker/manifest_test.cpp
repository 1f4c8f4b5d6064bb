#include "manifest.hpp"

#include <oms/sdk.hpp>

#include <catch2/catch.hpp>

using oms::docker::parse_manifest;

namespace {

const std::string kId = "sha256:" + std::string(64, 'a');

std::string error_of(const std::string& text) {
    try {
        parse_manifest(text, "/cfg/runtime.toml");
    } catch (const oms::sdk::Error& e) {
        CHECK(e.status() == OMS_ERR_INVALID);
        return e.what();
    }
    return "";
}

}  // namespace

TEST_CASE("manifest: an image ID or a digest reference is accepted") {
    auto m = parse_manifest("# pinned\n\nimage = \"" + kId + "\"  # the ID\nuser = \"1000:1000\"\n", "m.toml");
    CHECK(m.image == kId);
    CHECK(m.user == std::optional<std::string>("1000:1000"));
    CHECK(!m.archive);
    auto d = parse_manifest("image = \"registry.example/tools:1.2@" + kId + "\"\narchive=\"/srv/tools.tar\"\n", "m");
    CHECK(d.image == "registry.example/tools:1.2@" + kId);
    CHECK(d.archive == std::optional<std::string>("/srv/tools.tar"));
}

TEST_CASE("manifest: a bare tag or a malformed digest is refused with file:line") {
    CHECK(error_of("\nimage = \"busybox:latest\"\n").rfind("/cfg/runtime.toml:2: image 'busybox:latest' is not pinned", 0) == 0);
    CHECK(error_of("image = \"busybox\"\n").find(":1: image 'busybox' is not pinned") != std::string::npos);
    CHECK(error_of("image = \"sha256:abc\"\n").find("not pinned") != std::string::npos);
    CHECK(error_of("image = \"sha256:" + std::string(64, 'A') + "\"\n").find("not pinned") != std::string::npos);
    CHECK(error_of("image = \"@" + kId + "\"\n").find("not pinned") != std::string::npos);
}

// toml++ 3.3 meets undefined behaviour asking whether such a character is
// whitespace (found by fuzzing): it is refused before toml++ sees it.
TEST_CASE("manifest: a non-ASCII character outside a string is refused with file:line") {
    CHECK(error_of("image = \"" + kId + "\"\nuser = \"1000\" \xc3\xa9\n") ==
          "/cfg/runtime.toml:2: malformed TOML: a non-ASCII character outside a string or a comment (TOML allows "
          "none there)");
    // Positive control: in a string it is read.
    CHECK(parse_manifest("image = \"" + kId + "\"\narchive = \"/srv/jos\xc3\xa9.tar\"\n", "m").archive ==
          std::optional<std::string>("/srv/jos\xc3\xa9.tar"));
}

// Read through toml++: every malformed manifest names the file, the line and the key.
TEST_CASE("manifest: an unknown key names file, line and key") {
    CHECK(error_of("image = \"" + kId + "\"\nname = \"x\"\n") ==
          "/cfg/runtime.toml:2: unknown key 'name' (known: image, user, archive)");
    CHECK(error_of("image = \"" + kId + "\"\n\n[image2]\nx = \"y\"\n") ==
          "/cfg/runtime.toml:3: unknown key 'image2' (known: image, user, archive)");
}

TEST_CASE("manifest: a value of the wrong type names file, line and key") {
    CHECK(error_of("image = \"" + kId + "\"\nuser = 1000\n") ==
          "/cfg/runtime.toml:2: key 'user' must be a \"quoted string\"");
    CHECK(error_of("\narchive = [\"/a.tar\"]\nimage = \"" + kId + "\"\n") ==
          "/cfg/runtime.toml:2: key 'archive' must be a \"quoted string\"");
    CHECK(error_of("[image]\nid = \"" + kId + "\"\n") == "/cfg/runtime.toml:1: key 'image' must be a \"quoted string\"");
}

TEST_CASE("manifest: a bad TOML line names file, line and key") {
    auto unquoted = error_of("# pin\nimage = " + kId + "\n");
    CHECK(unquoted.rfind("/cfg/runtime.toml:2: malformed TOML at key 'image': ", 0) == 0);
    auto unterminated = error_of("image = \"" + kId + "\n");
    CHECK(unterminated.rfind("/cfg/runtime.toml:1: malformed TOML at key 'image': ", 0) == 0);
    auto trailing = error_of("user = \"1000:1000\"\nimage = \"" + kId + "\" extra\n");
    CHECK(trailing.rfind("/cfg/runtime.toml:2: malformed TOML at key 'image': ", 0) == 0);
    auto twice = error_of("image = \"" + kId + "\"\nimage = \"" + kId + "\"\n");
    CHECK(twice.rfind("/cfg/runtime.toml:2: malformed TOML at key 'image': ", 0) == 0);
    auto no_equals = error_of("image \"" + kId + "\"\n");
    CHECK(no_equals.rfind("/cfg/runtime.toml:1: malformed TOML", 0) == 0);
    CHECK(error_of("user = \"1000\"\n") == "/cfg/runtime.toml: missing key 'image' (the pinned image)");
}

TEST_CASE("manifest: the user must be numeric and not root") {
    CHECK(error_of("image = \"" + kId + "\"\nuser = \"0:0\"\n").rfind("/cfg/runtime.toml:2: user: '0:0' is root (uid 0)", 0) == 0);
    CHECK(error_of("image = \"" + kId + "\"\nuser = \"1000:0\"\n").find("group 0") != std::string::npos);
    CHECK(error_of("image = \"" + kId + "\"\nuser = \"root\"\n").find("numeric") != std::string::npos);
    CHECK(oms::docker::user_problem("1000").empty());
    CHECK(oms::docker::user_problem("65534:65534").empty());
}

TEST_CASE("manifest: an unreadable file names the config key") {
    try {
        oms::docker::load_manifest("/nonexistent/runtime.toml");
        FAIL("no error");
    } catch (const oms::sdk::Error& e) {
        CHECK(std::string(e.what()).find("[plugin.docker] manifest") != std::string::npos);
    }
}
