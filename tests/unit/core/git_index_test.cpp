// The git index reader against indexes written by the real git (versions 2,
// 3 and 4, SHA-1 and SHA-256, conflicts, a sparse index), each list compared
// with what `git ls-files` prints for the same repository, and against
// hostile bytes: truncations, paths leaving the worktree, a split index.
#include "oms/core/git_index.hpp"

#include "process.hpp"
#include "temp_dir.hpp"

#include <catch2/catch.hpp>

#include <string>
#include <vector>

using namespace oms::test;
using oms::core::parse_git_index;

namespace {

ProcessResult git_in(const std::string& repository, const std::vector<std::string>& args) {
    std::vector<std::string> argv{"/usr/bin/git", "-c", "user.name=t", "-c", "user.email=t@t",
                                  "-c", "init.defaultBranch=main", "-C", repository};
    argv.insert(argv.end(), args.begin(), args.end());
    ProcessOptions options;
    options.env = {"PATH=/usr/bin:/bin", "HOME=/nonexistent", "GIT_CONFIG_NOSYSTEM=1", "LC_ALL=C"};
    return run_process(argv, options);
}

void git_ok(const std::string& repository, const std::vector<std::string>& args) {
    const ProcessResult result = git_in(repository, args);
    INFO("git " << args.front() << ": " << result.err);
    REQUIRE(result.exit_code == 0);
}

// What git itself lists, one entry per path.
std::vector<std::string> git_listing(const std::string& repository) {
    const ProcessResult result = git_in(repository, {"ls-files", "-z", "--cached", "--deduplicate"});
    REQUIRE(result.exit_code == 0);
    std::vector<std::string> out;
    size_t start = 0;
    for (size_t i = 0; i < result.out.size(); ++i)
        if (result.out[i] == '\0') {
            out.push_back(result.out.substr(start, i - start));
            start = i + 1;
        }
    return out;
}

// A repository with nested folders, a long name, an executable, a link and
// names with spaces and UTF-8, all added.
void make_files(const TempDir& folder, const std::string& repository, const std::string& object_format = "sha1") {
    git_ok(folder.path(), {"init", "-q", "--object-format=" + object_format, repository});
    write_file(repository + "/README.md", "top\n");
    write_file(repository + "/src/main.c", "int main(void) { return 0; }\n");
    write_file(repository + "/src/deep/er/still/file.txt", "deep\n");
    write_file(repository + "/names/with space.txt", "s\n");
    write_file(repository + "/names/\xc3\xa9t\xc3\xa9.txt", "utf-8\n");
    write_file(repository + "/" + std::string(200, 'a') + "/" + std::string(200, 'b'), "long\n");
    git_ok(repository, {"add", "-A"});
}

std::vector<std::string> parsed_files(const std::string& repository) {
    const auto parsed = parse_git_index(read_file(repository + "/.git/index"));
    INFO("problem: " << parsed.problem.value_or("none"));
    REQUIRE_FALSE(parsed.problem);
    return parsed.files;
}

}  // namespace

TEST_CASE("git index: versions 2, 3 and 4 list what git lists", "[git-index]") {
    TempDir folder("oms-git-index");
    const std::string repository = folder / "r";
    make_files(folder, repository);
    const std::vector<std::string> expected = git_listing(repository);
    REQUIRE(expected.size() == 6);  // the fixture itself is what the test thinks it is

    git_ok(repository, {"update-index", "--index-version", "2"});
    CHECK(parsed_files(repository) == expected);

    // Version 3: an intent-to-add entry carries the extended flags.
    write_file(repository + "/later.txt", "later\n");
    git_ok(repository, {"add", "-N", "later.txt"});
    git_ok(repository, {"update-index", "--index-version", "3"});
    CHECK(parsed_files(repository) == git_listing(repository));
    CHECK(parsed_files(repository).size() == 7);

    // Version 4: each path is stored as a prefix of the one before plus a suffix.
    git_ok(repository, {"update-index", "--index-version", "4"});
    CHECK(parsed_files(repository) == git_listing(repository));
}

TEST_CASE("git index: a SHA-256 repository and an empty one", "[git-index]") {
    TempDir folder("oms-git-index");
    const std::string repository = folder / "r";
    make_files(folder, repository, "sha256");
    CHECK(parsed_files(repository) == git_listing(repository));
    CHECK(parsed_files(repository).size() == 6);

    git_ok(repository, {"rm", "-rq", "--cached", "."});
    CHECK(parsed_files(repository).empty());
}

TEST_CASE("git index: an unmerged path is one file; a sparse index's folders are named, not expanded",
          "[git-index]") {
    TempDir folder("oms-git-index");
    const std::string repository = folder / "r";
    make_files(folder, repository);
    git_ok(repository, {"commit", "-qm", "base"});
    git_ok(repository, {"checkout", "-qb", "other"});
    write_file(repository + "/README.md", "other\n");
    git_ok(repository, {"commit", "-qam", "other"});
    git_ok(repository, {"checkout", "-q", "main"});
    write_file(repository + "/README.md", "main\n");
    git_ok(repository, {"commit", "-qam", "main"});
    CHECK(git_in(repository, {"merge", "-q", "other"}).exit_code != 0);  // a conflict: three stages
    CHECK(parsed_files(repository) == git_listing(repository));
    git_ok(repository, {"merge", "--abort"});

    git_ok(repository, {"sparse-checkout", "init", "--cone", "--sparse-index"});
    git_ok(repository, {"sparse-checkout", "set", "names"});
    const auto parsed = parse_git_index(read_file(repository + "/.git/index"));
    REQUIRE_FALSE(parsed.problem);
    CHECK(parsed.sparse_folders == std::vector<std::string>{std::string(200, 'a') + "/", "src/"});
    CHECK(parsed.files ==
          std::vector<std::string>{"README.md", "names/with space.txt", "names/\xc3\xa9t\xc3\xa9.txt"});
}

TEST_CASE("git index: hostile or unreadable bytes give a problem, never a partial list", "[git-index]") {
    TempDir folder("oms-git-index");
    const std::string repository = folder / "r";
    make_files(folder, repository);
    const std::string good = read_file(repository + "/.git/index");
    REQUIRE_FALSE(parse_git_index(good).problem);  // positive control

    CHECK(parse_git_index("").problem);
    CHECK(parse_git_index("DIRC").problem);
    CHECK(parse_git_index(std::string("DIRC\0\0\0\x09\0\0\0\0", 12)).problem->find("version 9") !=
          std::string::npos);
    CHECK(parse_git_index("PACK" + good.substr(4)).problem->find("DIRC") != std::string::npos);
    // Every truncation fails: the entry count and the checksum must line up.
    for (size_t length = 0; length < good.size(); length += 7) {
        const auto parsed = parse_git_index(good.substr(0, length));
        CHECK(parsed.problem);
        CHECK(parsed.files.empty());
    }

    // "src/" made "../" in place: same lengths, a path that leaves the worktree.
    std::string escaping = good;
    const size_t at = escaping.find("src/main.c");
    REQUIRE(at != std::string::npos);
    escaping.replace(at, 4, "..//");
    const auto parsed = parse_git_index(escaping);
    REQUIRE(parsed.problem);
    CHECK(parsed.problem->find("'..//main.c'") != std::string::npos);
    CHECK(parsed.files.empty());

    std::string nested_git = good;
    nested_git.replace(nested_git.find("src/main.c"), 5, ".git/");
    CHECK(parse_git_index(nested_git).problem);

    git_ok(repository, {"update-index", "--split-index"});
    const auto split = parse_git_index(read_file(repository + "/.git/index"));
    REQUIRE(split.problem);
    CHECK(split.problem->find("split index") != std::string::npos);
}
