// The rendered profile, judged by what it decides: a table of (operation,
// target, expected decision) cases evaluated on a fake HOME, once with a
// plain HOME and once with a HOME full of hostile bytes.
#include "evaluated_profile.hpp"

#include <catch2/catch.hpp>

using namespace oms::test;
using namespace oms::test::seatbelt;
using sbpl::Decision;

namespace {

constexpr Decision allow = Decision::allow;
constexpr Decision deny = Decision::deny;

struct Case {
    std::string operation;
    std::string target;
    Decision expected;
    std::string why;
};

std::vector<Case> read_cases(const Layout& l) {
    const std::string& h = l.home;
    const std::string& w = l.worktree;
    return {
        {"file-read-data", h + "/.bashrc", deny, "a dotfile under HOME"},
        {"file-read-data", h + "/notes.txt", deny, "a file under HOME"},
        {"file-read-data", h + "/work/other-repo/src/main.rs", deny, "another repository"},
        {"file-read-data", h + "/work/repo2/secret.txt", deny, "sibling whose name extends the worktree's"},
        {"file-read-data", w + "/src/lib.rs", allow, "the worktree"},
        {"file-read-data", w, allow, "the worktree folder itself"},
        {"file-read-data", w + "/.git/config", allow, "the task's git folder is readable"},
        {"file-read-data", w + "/keys/dev-keypair.json", deny, "keypair inside the worktree"},
        {"file-read-data", w + "/target/deploy/prog-keypair.json", deny, "program keypair"},
        {"file-read-data", w + "/id.json", deny, "id.json at the worktree root"},
        {"file-read-data", w + "/config/id.json", deny, "id.json deeper"},
        {"file-read-data", w + "/myid.json", allow, "'/id.json' needs the slash"},
        {"file-read-data", w + "/id.json.bak", allow, "the suffix must end the path"},
        {"file-read-data", w + "/keypair.json", allow, "'-keypair.json' needs the dash"},
        {"file-read-data", w + "/x-keypair.jsonx", allow, "suffix not at the end"},
        {"file-read-data", w + "/x-keypairXjson", allow, "the dot is literal, not 'any character'"},
        {"file-read-data", w + "/target/deploy/prog-keypair.json/saved.json", deny,
         "a keypair's name made a folder: the key copied into it"},
        {"file-read-data", w + "/id.json/key.json", deny, "'/id.json' made a folder at the worktree's top"},
        {"file-read-data", w + "/config/id.json/key.json", deny, "'/id.json' made a folder deeper"},
        {"file-read-data", w + "/x-keypair.jsonx/a.txt", allow, "a folder whose name only contains the suffix"},
        {"file-read-data", w + "/myid.json/a.txt", allow, "'/id.json' as a folder needs the slash too"},
        {"file-read-data", w + "/target/deploy/PROG-KEYPAIR.JSON", deny,
         "a keypair name in capitals: the same file on a case-insensitive file system"},
        {"file-read-data", w + "/Config/ID.Json", deny, "'/id.json' in mixed case"},
        {"file-read-data", w + "/target/deploy/Prog-Keypair.Json/saved.json", deny, "a keypair folder in mixed case"},
        {"file-read-data", "/tmp/stray-keypair.json", deny, "keypairs are denied outside HOME too"},
        {"file-read-data", "/etc/hosts", allow, "reads outside HOME are not denied"},
        {"file-read-data", "/usr/bin/git", allow, "system tools"},
        {"file-read-data", "/usr/local/bin/node", allow, "a PATH entry"},
        {"file-read-data", h + "/.ssh/id_ed25519", deny, "ssh key"},
        {"file-read-data", h + "/.ssh", deny, "the .ssh folder itself"},
        {"file-read-data", h + "/.config/solana/id.json", deny, "solana wallet"},
        {"file-read-data", h + "/.config/solana/cli/config.yml", deny, "solana config"},
        {"file-read-data", h + "/.aws/credentials", deny, "aws"},
        {"file-read-data", h + "/Library/Keychains/login.keychain-db", deny, "keychain file"},
        {"file-read-data", h + "/.config/gh/hosts.yml", deny, "gh token"},
        {"file-read-data", h + "/.docker/config.json", deny, "docker auth"},
        {"file-read-data", h + "/.netrc", deny, "netrc"},
        {"file-read-data", h + "/.npmrc", deny, "npmrc"},
        {"file-read-data", h + "/.cargo/bin/cargo", allow, "cargo"},
        {"file-read-data", h + "/.cargo/registry/index/cache", allow, "cargo registry"},
        {"file-read-data", h + "/.rustup/toolchains/stable/bin/rustc", allow, "rustup"},
        {"file-read-data", h + "/.local/share/solana/install/active_release/bin/solana", allow, "solana tools"},
        {"file-read-data", h + "/.nvm/versions/node/v20/bin/node", allow, "nvm"},
        {"file-read-data", h + "/.local/bin/other-tool", deny, "only the Surfpool binary is reopened"},
        {"file-read-data", h + "/datasets/ro/table.csv", allow, "read-only mount"},
        {"file-read-data", h + "/.cargo/registry/x-keypair.json", deny, "keypair inside a toolchain root"},
        {"file-read-data", h, deny, "listing HOME"},
        {"file-read-metadata", h, allow, "stat of HOME, on the way to the worktree"},
        {"file-read-metadata", h + "/work", allow, "stat of the worktree's parent"},
        {"file-read-data", h + "/work", deny, "listing the worktree's parent"},
        {"file-read-metadata", h + "/.bashrc", deny, "stat of an unrelated file under HOME"},
        {"file-read-metadata", h + "/.ssh", deny, "stat of .ssh"},
        {"file-read-xattr", h + "/.aws/config", deny, "xattrs are reads too"},
    };
}

std::vector<Case> write_cases(const Layout& l) {
    const std::string& h = l.home;
    const std::string& w = l.worktree;
    return {
        {"file-write-data", w + "/src/lib.rs", allow, "the worktree"},
        {"file-write-create", w + "/new.txt", allow, "new file in the worktree"},
        {"file-write-data", w + "/keys/dev-keypair.json", allow, "writing a new keypair is allowed"},
        {"file-write-data", w + "/.git/config", deny, ".git"},
        {"file-write-create", w + "/.git/hooks/pre-commit", deny, "a git hook"},
        {"file-write-unlink", w + "/.git/index", deny, "unlink inside .git"},
        {"file-write-data", w + "/tests/pinned.spec.ts", deny, "pinned verifier file"},
        {"file-write-data", w + "/tests/other.spec.ts", allow, "a pinned file's neighbour"},
        {"file-write-unlink", w + "/tests/pinned.spec.ts", deny, "unlink a pinned file"},
        {"file-write-unlink", w + "/tests", deny, "rename the pinned file's folder"},
        {"file-write-unlink", w + "/tests/other.spec.ts", allow, "unlink a neighbour"},
        {"file-write-unlink", w, deny, "rename the worktree (parent of .git)"},
        {"file-write-unlink", w + "/src/old.rs", allow, "ordinary unlink in the worktree"},
        {"file-write-data", h + "/.bashrc", deny, "HOME outside the roots"},
        {"file-write-data", "/etc/hosts", deny, "system file"},
        {"file-write-data", l.private_home + "/.cache/x", allow, "private HOME"},
        {"file-write-data", l.temp_dir + "/a.out", allow, "temp folder"},
        {"file-write-data", "/private/tmp/elsewhere", deny, "temp outside the run's folder"},
        {"file-write-data", h + "/.cargo/registry/cache/x.crate", allow, "cargo download cache"},
        {"file-write-data", h + "/.cargo/git/db/x", allow, "cargo git cache"},
        {"file-write-data", h + "/.cargo/bin/cargo", deny, "toolchains are read-only"},
        {"file-write-data", h + "/datasets/ro/table.csv", deny, "read-only mount"},
        {"file-write-unlink", h + "/.ssh", deny, "move .ssh away"},
        {"file-write-unlink", h + "/.ssh/id_ed25519", deny, "move a key out of .ssh"},
        {"file-write-unlink", h + "/.config", deny, "rename the parent of .config/solana"},
        {"file-write-unlink", h, deny, "rename HOME"},
        {"file-write-unlink", w + "/keys/dev-keypair.json", deny, "rename a keypair to a readable name"},
        {"file-write-unlink", w + "/keys", allow, "a keypair's folder: renaming keeps the suffix"},
        {"file-write-create", w + "/sub/.git/hooks/pre-commit", deny, "a nested repository's hook"},
        {"file-write-data", w + "/sub/.git/config", deny, "a nested repository's config"},
        {"file-write-data", w + "/vendor/lib/.git", deny, "a submodule's .git file"},
        {"file-write-unlink", w + "/sub/.git", deny, "move a nested .git away"},
        {"file-write-data", w + "/sub/file", allow, "a file beside a nested .git"},
        {"file-write-unlink", w + "/sub", allow, "its folder: the .git keeps its name wherever it goes"},
        {"file-write-data", w + "/sub/.github/ci.yml", allow, "a name that only starts with .git"},
        {"file-write-data", w + "/sub/x.git", allow, "a name that only ends with .git"},
        {"file-write-data", w + "/sub/xgit/f", allow, "the dot is a dot, not any byte"},
        {"file-write-data", l.temp_dir + "/clone/.git/config", deny, "a .git made during the run, anywhere"},
    };
}

std::vector<Case> network_cases(bool with_surfpool) {
    const Decision surfpool_only = with_surfpool ? allow : deny;
    return {
        {"network-outbound", "localhost:8899", allow, "Surfnet port"},
        {"network-outbound", "127.0.0.1:8899", allow, "Surfnet port by IPv4"},
        {"network-outbound", "[::1]:8899", allow, "Surfnet port by IPv6"},
        {"network-outbound", "127.0.0.1:8900", surfpool_only, "websocket port"},
        {"network-outbound", "127.0.0.1:9900", surfpool_only, "faucet port"},
        {"network-outbound", "127.0.0.1:8080", deny, "another loopback port"},
        {"network-outbound", "10.0.0.5:8899", deny, "the Surfnet port on another host"},
        {"network-outbound", "93.184.216.34:443", deny, "the internet"},
        {"network-outbound", "8.8.8.8:53", deny, "DNS"},
        {"network-bind", "127.0.0.1:8899", surfpool_only, "Surfpool listening"},
        {"network-inbound", "127.0.0.1:8900", surfpool_only, "Surfpool accepting"},
        {"network-bind", "127.0.0.1:8080", deny, "listening on another port"},
        {"network-bind", "0.0.0.0:8899", deny, "listening on every interface"},
        {"network-inbound", "10.0.0.5:8899", deny, "accepting on a public address"},
    };
}

std::vector<Case> other_cases() {
    return {
        {"mach-lookup", "com.apple.SecurityServer", deny, "keychain"},
        {"mach-lookup", "com.apple.securityd", deny, "keychain"},
        {"mach-lookup", "com.apple.system.logger", allow, "an ordinary service"},
        {"mach-lookup", "com.apple.securityd.xpc", allow, "global-name is exact, not a prefix"},
        {"appleevent-send", "com.apple.Terminal", deny, "Apple Events"},
        {"appleevent-send", "com.apple.systemevents", deny, "System Events"},
        {"lsopen", "/Applications/Safari.app", deny, "LaunchServices"},
        {"process-exec", "/bin/ls", allow, "running programs"},
        {"sysctl-read", "", allow, "the default stays allow"},
    };
}

std::vector<Case> all_cases(const Layout& layout, bool with_surfpool) {
    std::vector<Case> cases;
    for (auto part : {read_cases(layout), write_cases(layout), network_cases(with_surfpool), other_cases()})
        cases.insert(cases.end(), part.begin(), part.end());
    return cases;
}

void check_cases(const sbpl::Evaluator& evaluator, const std::vector<Case>& cases) {
    for (const auto& c : cases) {
        INFO(c.operation << " " << c.target << " (" << c.why << ")");
        CHECK(sbpl::to_string(evaluator.decide({c.operation, c.target})) == std::string(sbpl::to_string(c.expected)));
    }
}

void check_table(const std::string& home, bool with_surfpool) {
    const Layout layout = layout_under(home, with_surfpool);
    auto policy = mirror_policy(layout);
    const auto profile = render(policy);
    const auto evaluator = evaluate(profile);
    const auto cases = all_cases(layout, with_surfpool);
    REQUIRE(cases.size() >= 60);
    check_cases(evaluator, cases);
}

// Every byte that could break quoting or a regex, and a newline.
const std::string hostile_home = "/Users/Ann \"Q\" O'Neil \\ [x] {y} (z) ü ñ 日本 .*+?|^$ #\"r\" ; \n end";

}  // namespace

TEST_CASE("profile decisions on a plain HOME, host session with Surfpool", "[seatbelt][meaning]") {
    check_table("/Users/ann", true);
}

TEST_CASE("profile decisions on a plain HOME, without Surfpool", "[seatbelt][meaning]") {
    check_table("/Users/ann", false);
}

TEST_CASE("profile decisions on a HOME full of hostile bytes", "[seatbelt][meaning]") {
    check_table(hostile_home, true);
}

TEST_CASE("hostile bytes in one root do not leak into another's meaning", "[seatbelt][meaning]") {
    // A HOME whose name is itself a keypair-looking path: the suffix rule must
    // only apply at the very end of a path.
    const Layout layout = layout_under("/Users/x-keypair.json", true);
    auto policy = mirror_policy(layout);
    const auto evaluator = evaluate(render(policy));
    CHECK(evaluator.decide({"file-read-data", layout.worktree + "/src/lib.rs"}) == allow);
    CHECK(evaluator.decide({"file-read-data", layout.worktree + "/a-keypair.json"}) == deny);
}

TEST_CASE("a symlinked spelling is rendered with its resolved twin", "[seatbelt][meaning]") {
    // macOS resolves /tmp to /private/tmp before Seatbelt sees a path.
    PolicyBuilder policy;
    policy.add(OMS_RULE_WRITE_ALLOW_TREE, "/tmp/oms-run-1/tmp");
    policy.add(OMS_RULE_READ_DENY_TREE, "/tmp/oms-run-1/home");
    auto resolver = [](const std::string& path) {
        return path.compare(0, 5, "/tmp/") == 0 ? "/private" + path : path;
    };
    const auto profile = oms::seatbelt::render_profile(rules_of(policy), resolver);
    const auto evaluator = evaluate(profile);
    CHECK(evaluator.decide({"file-write-data", "/private/tmp/oms-run-1/tmp/x"}) == allow);
    CHECK(evaluator.decide({"file-write-data", "/tmp/oms-run-1/tmp/x"}) == allow);
    CHECK(evaluator.decide({"file-read-data", "/private/tmp/oms-run-1/home/x"}) == deny);
    CHECK(evaluator.decide({"file-write-data", "/private/tmp/other"}) == deny);
}

TEST_CASE("an empty policy still denies writes and network", "[seatbelt][meaning]") {
    PolicyBuilder policy;
    const auto evaluator = evaluate(render(policy));
    CHECK(evaluator.decide({"file-write-data", "/Users/ann/x"}) == deny);
    CHECK(evaluator.decide({"network-outbound", "127.0.0.1:8899"}) == deny);
    CHECK(evaluator.decide({"appleevent-send", "com.apple.Terminal"}) == deny);
    // Positive control: with no read rules, reads stay allowed (no accidental filterless deny).
    CHECK(evaluator.decide({"file-read-data", "/Users/ann/x"}) == allow);
}

TEST_CASE("a read allow naming exactly a keypair-named file exempts it; a read deny still wins", "[seatbelt][meaning]") {
    const Layout layout = layout_under("/Users/ann", true);
    auto policy = mirror_policy(layout);
    const std::string locale = layout.worktree + "/node_modules/pkg/locales/id.json";
    policy.add(OMS_RULE_READ_ALLOW_TREE, locale);  // what keypair_exempt emits
    policy.add(OMS_RULE_READ_ALLOW_TREE, layout.home + "/.ssh/deploy-keypair.json");  // under a secret
    const auto evaluator = evaluate(render(policy));
    CHECK(evaluator.decide({"file-read-data", locale}) == allow);
    // Positive controls: the same suffix elsewhere, and the secret folder.
    CHECK(evaluator.decide({"file-read-data", layout.worktree + "/node_modules/pkg/id.json"}) == deny);
    CHECK(evaluator.decide({"file-read-data", layout.worktree + "/wallet-keypair.json"}) == deny);
    CHECK(evaluator.decide({"file-read-data", layout.home + "/.ssh/deploy-keypair.json"}) == deny);
    CHECK(evaluator.decide({"file-read-data", layout.home + "/.ssh/id_rsa"}) == deny);
}

TEST_CASE("other runs' folders in the shared temp folder are closed, this run's is open", "[seatbelt][meaning][run]") {
    // Seatbelt lets every command write the system temp folders, and every
    // run's folder lies in the user's folder of run folders in the caller's
    // TMPDIR there.
    const std::string temp = "/private/var/folders/zz/abc/T";
    const std::string base = temp + "/oms-runs-501";
    const std::string own = base + "/oms-run-abc123";
    const std::string other = base + "/oms-run-zzz999";
    PolicyBuilder policy;
    policy.add(OMS_RULE_WRITE_ALLOW_TREE, own + "/home");
    policy.add(OMS_RULE_WRITE_ALLOW_TREE, own + "/tmp");
    policy.add(OMS_RULE_WRITE_ALLOW_TREE, "/private/tmp");          // the write-roots policy's system temps
    policy.add(OMS_RULE_WRITE_ALLOW_TREE, "/private/var/folders");
    policy.add(OMS_RULE_READ_DENY_SUFFIX, "-keypair.json");
    policy.add(OMS_RULE_WRITE_DENY_NAME, ".git");
    auto resolver = [](const std::string& path) {
        return path.compare(0, 5, "/var/") == 0 ? "/private" + path : path;
    };
    const auto run = oms::seatbelt::run_folder_of(own + "/home", own + "/tmp");
    REQUIRE(run.own == own);
    REQUIRE(run.base == base);
    const auto with_rule = evaluate(oms::seatbelt::render_profile(rules_of(policy), resolver, run));
    const std::vector<Case> cases{
        {"file-write-data", own + "/home/.gitconfig", allow, "this run's private HOME"},
        {"file-read-data", own + "/home/.gitconfig", allow, "this run's private HOME, read"},
        {"file-write-create", own + "/tmp/cc.o", allow, "this run's TMPDIR"},
        {"file-write-data", other + "/home/.gitconfig", deny, "another run's private HOME"},
        {"file-read-data", other + "/tmp/secret.txt", deny, "another run's TMPDIR, read"},
        {"file-write-unlink", other + "/tmp", deny, "moving another run's TMPDIR"},
        {"file-write-create", base + "/oms-run-squat", deny, "a run folder's name taken for the next run"},
        {"file-write-data", "/var/folders/zz/abc/T/oms-runs-501/oms-run-zzz999/home/x", deny, "the /var spelling"},
        {"file-write-unlink", base, deny, "moving the run folders' folder away, running runs' folders with it"},
        {"file-write-unlink", "/var/folders/zz/abc/T/oms-runs-501", deny, "the same, in the /var spelling"},
        {"file-write-data", temp + "/tool.tmp", allow, "the rest of the shared temp folder"},
        {"file-read-data", temp + "/tool.tmp", allow, "the rest of the shared temp folder, read"},
        {"file-read-metadata", base, allow, "the run folders' folder can be passed through"},
        {"file-write-data", "/private/tmp/x", allow, "the other system temp folder"},
        {"file-read-data", own + "/tmp/x-keypair.json", deny, "keypairs stay denied in this run's folder"},
        {"file-write-data", own + "/tmp/clone/.git/config", deny, "a .git stays read-only in this run's folder"},
    };
    check_cases(with_rule, cases);
    // What the rule closes: without the run folder, another run's HOME is writable.
    const auto without = evaluate(oms::seatbelt::render_profile(rules_of(policy), resolver));
    CHECK(without.decide({"file-write-data", other + "/home/.gitconfig"}) == allow);
    CHECK(without.decide({"file-read-data", other + "/tmp/secret.txt"}) == allow);
    CHECK(without.decide({"file-write-unlink", base}) == allow);
}

TEST_CASE("the run folder is known only when HOME and TMPDIR share a folder named like one", "[seatbelt][run]") {
    using oms::seatbelt::run_folder_of;
    CHECK(run_folder_of("/t/oms-run-a1/home", "/t/oms-run-a1/tmp").own == "/t/oms-run-a1");
    CHECK(run_folder_of("/t/oms-run-a1/home", "/t/oms-run-b2/tmp").own.empty());   // two folders
    CHECK(run_folder_of("/t/mine/home", "/t/mine/tmp").own.empty());              // not a run folder's name
    CHECK(run_folder_of("/oms-run-a1/home", "/oms-run-a1/tmp").own.empty());      // no base but /
    CHECK(run_folder_of("oms-run-a1/home", "oms-run-a1/tmp").own.empty());        // relative
    CHECK(run_folder_of("", "").own.empty());
}
