// Rung 3's rules: a folder holding a protected path keeps only its listing
// and its other entries get the rule, down to the protected path, which
// gets nothing (hidden) or reads only (.git, pinned).
#include "landlock_only_plan.hpp"
#include "landlock_uapi.hpp"

#include <catch2/catch.hpp>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>

using namespace oms::landlock;
namespace fs = std::filesystem;

namespace {

constexpr uint64_t kWrite = uapi::kReadRights | uapi::kFsWriteFile | uapi::kFsTruncate | uapi::kFsMakeReg |
                            uapi::kFsRemoveFile | uapi::kFsMakeDir;

struct Tree {
    fs::path root = fs::temp_directory_path() / ("oms-landlock-only-" + std::to_string(getpid()));
    Tree() {
        fs::remove_all(root);
        for (const char* file : {"a.txt", "wallet-keypair.json", ".git/config", "sub/x", "sub/id.json", "far/y"}) {
            fs::create_directories((root / file).parent_path());
            std::ofstream(root / file) << "content";
        }
        fs::create_symlink("/etc", root / "link");
    }
    ~Tree() { fs::remove_all(root); }
    std::string operator/(const char* relative) const { return (root / relative).string(); }
};

std::map<std::string, uint64_t> by_path(const std::vector<PathRule>& rules) {
    std::map<std::string, uint64_t> out;
    for (const auto& rule : rules) out[rule.path] |= rule.rights;
    return out;
}

}  // namespace

TEST_CASE("a folder holding protected paths is granted entry by entry", "[landlock-only]") {
    Tree t;
    const auto rules = by_path(split_around({PathRule{t.root.string(), kWrite, "write root"}},
                                            {ProtectedPath{t / "wallet-keypair.json", 0},
                                             ProtectedPath{t / ".git", uapi::kReadRights},
                                             ProtectedPath{t / "sub/id.json", 0}}));
    CHECK(rules.at(t.root.string()) == uapi::kFsReadDir);  // listing only: no new entry, no removal
    CHECK(rules.at(t / "a.txt") == (kWrite & uapi::kFileRights));
    CHECK(rules.count(t / "wallet-keypair.json") == 0);
    CHECK(rules.at(t / ".git") == uapi::kReadRights);
    CHECK(rules.at(t / "sub") == uapi::kFsReadDir);
    CHECK(rules.at(t / "sub/x") == (kWrite & uapi::kFileRights));
    CHECK(rules.count(t / "sub/id.json") == 0);
    CHECK(rules.at(t / "far") == kWrite);  // nothing protected below: the folder whole
    CHECK(rules.count(t / "link") == 0);   // a link gets no rule: its target has its own
    CHECK(rules.size() == 6);
}

TEST_CASE("a rule on or below a protected path is capped", "[landlock-only]") {
    Tree t;
    const auto rules = by_path(split_around({PathRule{t / ".git", kWrite, "read root"},
                                             PathRule{t / "sub/id.json", uapi::kFileRights, "exact"},
                                             PathRule{t / "far/y", uapi::kFileRights, "below a hidden folder"}},
                                            {ProtectedPath{t / ".git", uapi::kReadRights},
                                             ProtectedPath{t / "sub/id.json", 0}, ProtectedPath{t / "far", 0}}));
    CHECK(rules.at(t / ".git") == uapi::kReadRights);
    CHECK(rules.count(t / "sub/id.json") == 0);
    CHECK(rules.count(t / "far/y") == 0);
}

TEST_CASE("rules without a protected path below them are left as they are", "[landlock-only]") {
    Tree t;
    const std::vector<PathRule> rules{PathRule{t / "far", kWrite, "w"}, PathRule{"/usr", uapi::kReadRights, "r"}};
    const auto split = split_around(rules, {ProtectedPath{t / "sub/id.json", 0}});
    REQUIRE(split.size() == 2);
    CHECK(split[0].path == t / "far");
    CHECK(split[1].rights == uapi::kReadRights);
}

TEST_CASE("a plan without namespaces has no mounts and no private network", "[landlock-only]") {
    Tree t;
    Plan plan;
    plan.worktree = t.root.string();
    plan.path_rules = {PathRule{t.root.string(), kWrite, "write root"}, PathRule{"/tmp", kWrite, "system temp"}};
    plan.private_temps = {"/tmp"};
    plan.temp_keeps = {t.root.string()};  // the tree lies in /tmp, as a run's own folders do
    plan.read_only = {t / ".git"};
    plan.hide_files = {t / "wallet-keypair.json"};
    plan.writable_mounts = {t.root.string()};
    adapt_for_landlock_only(plan);
    CHECK_FALSE(plan.namespaces);
    CHECK_FALSE(plan.own_network);
    CHECK(plan.writable_mounts.empty());
    CHECK(plan.private_temps.empty());
    CHECK(plan.read_only.empty());
    CHECK(plan.hide_files.empty());
    const auto rules = by_path(plan.path_rules);
    CHECK(rules.count("/tmp") == 0);  // the host's temp folder is not granted
    CHECK(rules.count(t / "wallet-keypair.json") == 0);
    CHECK(rules.at(t / ".git") == uapi::kReadRights);
    CHECK(rules.at(t / "a.txt") == (kWrite & uapi::kFileRights));
}
