// oms verify's list of inputs is read through the very `.git` whose
// identity was checked: a repository swapped in at the same name after the
// check (a command racing `oms verify`) is never the one read.
#include "oms/core/tracked_files.hpp"

#include "process.hpp"
#include "temp_dir.hpp"

#include <catch2/catch.hpp>

#include <sys/stat.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

using namespace oms::test;
using oms::core::tracked_files;

namespace {

void git_ok(const std::string& repository, const std::vector<std::string>& args) {
    std::vector<std::string> argv{"/usr/bin/git", "-c", "init.defaultBranch=main", "-C", repository};
    argv.insert(argv.end(), args.begin(), args.end());
    ProcessOptions options;
    options.env = {"PATH=/usr/bin:/bin", "HOME=/nonexistent", "GIT_CONFIG_NOSYSTEM=1", "LC_ALL=C"};
    const ProcessResult result = run_process(argv, options);
    INFO("git " << args.front() << ": " << result.err);
    REQUIRE(result.exit_code == 0);
}

std::string identity_of(const std::string& path) {
    struct stat st;
    REQUIRE(lstat(path.c_str(), &st) == 0);
    return std::to_string(st.st_dev) + " " + std::to_string(st.st_ino);
}

bool has(const std::vector<std::string>& names, const std::string& name) {
    return std::find(names.begin(), names.end(), name) != names.end();
}

// A worktree whose repository tracks `real.txt`, and beside it a decoy
// repository tracking `decoy.txt`.
struct TwoRepositories {
    TempDir base{"oms-tracked"};
    std::string worktree = base / "work";
    std::string decoy = base / "decoy";
    TwoRepositories() {
        write_file(worktree + "/real.txt", "r\n");
        write_file(decoy + "/decoy.txt", "d\n");
        for (const auto& repository : {worktree, decoy}) {
            git_ok(repository, {"init", "-q"});
            git_ok(repository, {"add", "-A"});
        }
    }
};

}  // namespace

TEST_CASE("the index is read through the .git whose identity was accepted", "[verify]") {
    TwoRepositories repos;
    const std::string checked = identity_of(repos.worktree + "/.git");
    std::string seen;
    const auto plain = tracked_files(repos.worktree, [&](const std::string& identity) { seen = identity; });
    CHECK(seen == checked);  // positive control: the real repository, read
    CHECK(plain.git_identity == checked);
    CHECK(has(plain.files, "real.txt"));

    // The decoy takes the .git's name right after the check.
    const auto swapped = tracked_files(repos.worktree, [&](const std::string&) {
        REQUIRE(std::rename((repos.worktree + "/.git").c_str(), (repos.base / "moved-git").c_str()) == 0);
        REQUIRE(std::rename((repos.decoy + "/.git").c_str(), (repos.worktree + "/.git").c_str()) == 0);
    });
    CHECK(identity_of(repos.worktree + "/.git") != checked);  // the swap took place
    CHECK(swapped.git_identity == checked);
    CHECK(has(swapped.files, "real.txt"));
    CHECK_FALSE(has(swapped.files, "decoy.txt"));
}

TEST_CASE("a refusal from the identity check stops the listing before the index is read", "[verify]") {
    TwoRepositories repos;
    bool refused = false;
    try {
        tracked_files(repos.worktree, [](const std::string&) { throw std::runtime_error("refused"); });
    } catch (const std::runtime_error& e) {
        refused = std::string(e.what()) == "refused";
    }
    CHECK(refused);
    // Control: accepted, the same repository lists its file.
    CHECK(has(tracked_files(repos.worktree, [](const std::string&) {}).files, "real.txt"));
}
