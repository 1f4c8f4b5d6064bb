// secret-deny: exact deny lists on a fake HOME, symlinked HOME and secrets,
// and the narrowing config keys.
#include "policy_test_support.hpp"
#include "secret_deny.hpp"

#include <catch2/catch.hpp>

#include <unistd.h>

#include <algorithm>

using namespace oms::test;
using oms::policies::SecretDeny;

namespace {

// The spec's list, then the token files of common tools (Cargo's inside the
// ~/.cargo read root), cloud CLIs and key stores.
const char* const secrets[] = {".ssh", ".config/solana", ".aws", "Library", ".config/gh", ".docker", ".netrc", ".npmrc",
                               ".cargo/credentials.toml", ".cargo/credentials", ".yarnrc.yml", ".yarnrc",
                               ".bunfig.toml", ".pypirc", ".git-credentials", ".config/git/credentials",
                               ".config/hub", ".kube", ".config/gcloud", ".azure", ".gnupg", ".password-store",
                               ".local/share/keyrings"};

std::string origin(const std::string& reason) { return "secret-deny: " + reason; }

std::vector<std::string> home_rules(const std::string& home) {
    return {rule(OMS_RULE_READ_DENY_TREE, home, origin("HOME"))};
}

// Each secret under every spelling of HOME, grouped by secret.
std::vector<std::string> secret_rules(const std::vector<std::string>& homes) {
    std::vector<std::string> out;
    for (const char* secret : secrets)
        for (const std::string& home : homes)
            out.push_back(rule(OMS_RULE_READ_DENY, home + "/" + secret, origin(std::string("~/") + secret)));
    return out;
}

std::vector<std::string> tail_rules() {
    return {rule(OMS_RULE_READ_DENY_SUFFIX, "-keypair.json", origin("keypair file")),
            rule(OMS_RULE_READ_DENY_SUFFIX, "/id.json", origin("keypair file")),
            rule(OMS_RULE_IPC_DENY_SERVICE, "com.apple.SecurityServer", origin("keychain")),
            rule(OMS_RULE_IPC_DENY_SERVICE, "com.apple.securityd", origin("keychain"))};
}

template <class... Lists>
std::vector<std::string> concat(std::vector<std::string> first, const Lists&... rest) {
    (first.insert(first.end(), rest.begin(), rest.end()), ...);
    return first;
}

struct FakeHome {
    TempDir tmp{"oms-secret-deny"};
    FakeHost host;
    ContextBuilder context;
    std::string T = tmp.path();
    std::string H = T + "/home";
    FakeHome() {
        make_dirs(H + "/.config/solana");  // some secrets exist, most do not: all are denied
        write_file(H + "/.netrc", "machine example.com password hunter2\n");
        make_dirs(T + "/work");
        context.home = H;
        context.worktree = T + "/work";
        context.parent_env = {"HOME=" + H};
    }
    Outcome run() { return run_policy<SecretDeny>(host, context); }
};

}  // namespace

TEST_CASE("secret-deny denies HOME, every spec secret (existing or not), keypairs and the keychain") {
    FakeHome f;
    const Outcome out = f.run();
    REQUIRE(out.status == OMS_OK);
    CHECK(out.rules == concat(home_rules(f.H), secret_rules({f.H}), tail_rules()));
}

TEST_CASE("secret-deny also denies where a symlinked secret leads") {
    FakeHome f;
    make_dirs(f.T + "/vault/ssh");
    make_symlink(f.T + "/vault/ssh", f.H + "/.ssh");
    const Outcome out = f.run();
    REQUIRE(out.status == OMS_OK);
    auto expected = concat(home_rules(f.H), secret_rules({f.H}), tail_rules());
    expected.insert(expected.begin() + 2, rule(OMS_RULE_READ_DENY, f.T + "/vault/ssh", origin("~/.ssh (resolved)")));
    CHECK(out.rules == expected);
}

TEST_CASE("secret-deny denies every spelling of a symlinked HOME") {
    FakeHome f;
    make_symlink(f.H, f.T + "/home-link");
    const std::string L = f.T + "/home-link";
    SECTION("the context names the link: its real path is denied too") {
        f.context.home = L;
        const Outcome out = f.run();
        REQUIRE(out.status == OMS_OK);
        CHECK(out.rules == concat(home_rules(L), home_rules(f.H), secret_rules({L, f.H}), tail_rules()));
    }
    SECTION("the caller's $HOME is the link, the context the real path") {
        f.context.parent_env = {"HOME=" + L};
        const Outcome out = f.run();
        REQUIRE(out.status == OMS_OK);
        CHECK(out.rules == concat(home_rules(f.H), home_rules(L), secret_rules({f.H, L}), tail_rules()));
    }
    SECTION("a caller $HOME elsewhere is not taken as a spelling of HOME") {
        make_dirs(f.T + "/other");
        f.context.parent_env = {"HOME=" + f.T + "/other"};
        const Outcome out = f.run();
        REQUIRE(out.status == OMS_OK);
        CHECK(out.rules == concat(home_rules(f.H), secret_rules({f.H}), tail_rules()));
    }
}

TEST_CASE("secret-deny denies Cargo's registry token under CARGO_HOME too") {
    FakeHome f;
    make_dirs(f.T + "/cargo-real");
    make_symlink(f.T + "/cargo-real", f.T + "/cargo");
    f.context.parent_env.push_back("CARGO_HOME=" + f.T + "/cargo");
    const Outcome out = f.run();
    REQUIRE(out.status == OMS_OK);
    for (const char* file : {"credentials.toml", "credentials"}) {
        const std::string reason = origin(std::string("$CARGO_HOME/") + file + " (registry token)");
        CHECK(std::count(out.rules.begin(), out.rules.end(),
                         rule(OMS_RULE_READ_DENY, f.T + "/cargo/" + file, reason)) == 1);
        // Not created yet: denied through the resolved folder too, for a later `cargo login`.
        CHECK(std::count(out.rules.begin(), out.rules.end(),
                         rule(OMS_RULE_READ_DENY, f.T + "/cargo-real/" + file, reason + " (resolved)")) == 1);
        CHECK(std::count(out.rules.begin(), out.rules.end(),
                         rule(OMS_RULE_READ_DENY, f.H + "/.cargo/" + file, origin(std::string("~/.cargo/") + file))) == 1);
    }
    write_file(f.T + "/cargo-real/credentials.toml", "[registry]\ntoken = \"cio-secret\"\n");
    const Outcome resolved = f.run();
    CHECK(std::count(resolved.rules.begin(), resolved.rules.end(),
                     rule(OMS_RULE_READ_DENY, f.T + "/cargo-real/credentials.toml",
                          origin("$CARGO_HOME/credentials.toml (registry token) (resolved)"))) == 1);
}

TEST_CASE("secret-deny adds extra_paths and extra_suffixes") {
    FakeHome f;
    f.host.string_arrays["extra_paths"] = {"~/.vault-token", ".kube/config", "/etc/oms-test-secret", ".ssh"};
    f.host.string_arrays["extra_suffixes"] = {".pem"};
    const Outcome out = f.run();
    REQUIRE(out.status == OMS_OK);
    const std::vector<std::string> extras = {
        rule(OMS_RULE_READ_DENY, f.H + "/.vault-token", origin("extra_paths (config)")),
        rule(OMS_RULE_READ_DENY, f.H + "/.kube/config", origin("extra_paths (config)")),
        rule(OMS_RULE_READ_DENY, "/etc/oms-test-secret", origin("extra_paths (config)")),
        // ".ssh" repeats a built-in entry: not listed twice.
    };
    auto expected = concat(home_rules(f.H), secret_rules({f.H}), extras, tail_rules());
    expected.insert(expected.end() - 2, rule(OMS_RULE_READ_DENY_SUFFIX, ".pem", origin("extra_suffixes (config)")));
    CHECK(out.rules == expected);
}

TEST_CASE("secret-deny refuses empty config entries") {
    FakeHome f;
    SECTION("an empty suffix would match every path") {
        f.host.string_arrays["extra_suffixes"] = {""};
        const Outcome out = f.run();
        CHECK(out.status == OMS_ERR_INVALID);
        CHECK(out.error == "[plugin.secret-deny] extra_suffixes: an entry is empty (it would match every path)");
        CHECK(out.rules.empty());
    }
    SECTION("an empty path") {
        f.host.string_arrays["extra_paths"] = {""};
        const Outcome out = f.run();
        CHECK(out.status == OMS_ERR_INVALID);
        CHECK(out.error == "[plugin.secret-deny] extra_paths: an entry is empty");
    }
}

TEST_CASE("secret-deny turns keypair_exempt into exact read allows of the existing keypair-named files") {
    FakeHome f;
    const std::string W = f.T + "/work";
    write_file(W + "/node_modules/a/locales/id.json", "{}");
    write_file(W + "/node_modules/a/b/locales/id.json", "{}");
    write_file(W + "/node_modules/a/locales/en.json", "{}");    // no suffix: needs no exemption
    write_file(W + "/wallet-keypair.json", "[1]");             // not named: stays hidden
    write_file(f.H + "/keys/deploy-keypair.json", "[2]");
    f.host.string_arrays["keypair_exempt"] = {"node_modules/**/locales/*.json", "~/keys/deploy-keypair.json",
                                              "missing/id.json"};
    const Outcome out = f.run();
    REQUIRE(out.status == OMS_OK);
    auto expected = concat(home_rules(f.H), secret_rules({f.H}), tail_rules());
    const std::string why = "keypair_exempt (user config): ";
    for (const auto& [file, entry] : std::vector<std::pair<std::string, std::string>>{
             {W + "/node_modules/a/b/locales/id.json", "node_modules/**/locales/*.json"},
             {W + "/node_modules/a/locales/id.json", "node_modules/**/locales/*.json"},
             {f.H + "/keys/deploy-keypair.json", "~/keys/deploy-keypair.json"}})
        expected.insert(expected.end() - 2, rule(OMS_RULE_READ_ALLOW_TREE, file, origin(why + entry)));
    std::vector<std::string> got = out.rules;
    // The walk's order is the filesystem's: compare the exemptions as a set.
    std::sort(got.end() - 5, got.end() - 2);
    std::sort(expected.end() - 5, expected.end() - 2);
    CHECK(got == expected);
    SECTION("an empty entry is an error") {
        f.host.string_arrays["keypair_exempt"] = {""};
        const Outcome bad = f.run();
        CHECK(bad.status == OMS_ERR_INVALID);
        CHECK(bad.error == "[plugin.secret-deny] keypair_exempt: an entry is empty");
    }
}

TEST_CASE("keypair_exempt never follows a link a command could have made on the way to a file") {
    FakeHome f;
    const std::string W = f.T + "/work";
    // The real key elsewhere; the worktree's `keys` is a link to its folder.
    write_file(f.T + "/elsewhere/dev-keypair.json", "[9]");
    make_dirs(W);
    REQUIRE(symlink((f.T + "/elsewhere").c_str(), (W + "/keys").c_str()) == 0);
    write_file(W + "/real/dev-keypair.json", "[1]");
    f.host.string_arrays["keypair_exempt"] = {"keys/dev-keypair.json", "keys/*-keypair.json",
                                              "real/dev-keypair.json"};
    const Outcome out = f.run();
    REQUIRE(out.status == OMS_OK);
    std::string all;
    for (const std::string& r : out.rules) all += r + "\n";
    INFO(all);
    CHECK(all.find("/keys/") == std::string::npos);
    CHECK(all.find("/elsewhere/") == std::string::npos);
    // Positive control: the same file name in a real folder is exempt.
    CHECK(all.find(W + "/real/dev-keypair.json") != std::string::npos);
}

TEST_CASE("the built oms-secret-deny.so exports the same plugin") {
    LoadedPlugin plugin(OMS_PLUGIN_FILE);
    CHECK(std::string(plugin.descriptor().id) == "secret-deny");
    CHECK(std::string(plugin.descriptor().kind) == OMS_KIND_POLICY);
    CHECK(plugin.key_summary() ==
          std::vector<std::string>{"extra_paths (narrows)", "extra_suffixes (narrows)", "keypair_exempt"});
    FakeHome f;
    const Outcome out = plugin.contribute(f.host, f.context);
    REQUIRE(out.status == OMS_OK);
    CHECK(out.rules == concat(home_rules(f.H), secret_rules({f.H}), tail_rules()));
}
