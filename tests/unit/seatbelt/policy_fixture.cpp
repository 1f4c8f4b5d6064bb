#include "policy_fixture.hpp"

namespace oms::test::seatbelt {

Layout layout_under(const std::string& home, bool with_surfpool) {
    Layout layout;
    layout.home = home;
    layout.worktree = home + "/work/repo";
    layout.private_home = "/private/tmp/oms-run-abc123/home";
    layout.temp_dir = "/private/tmp/oms-run-abc123/tmp";
    if (with_surfpool) layout.surfpool = home + "/.local/bin/surfpool";
    layout.pinned = {layout.worktree + "/tests/pinned.spec.ts"};
    layout.read_only_mount = home + "/datasets/ro";
    return layout;
}

const std::vector<std::string>& allowlisted_names() {
    static const std::vector<std::string> names{
        "PATH", "HOME", "CARGO_HOME", "RUSTUP_HOME", "LANG", "LC_ALL", "LC_CTYPE", "LC_MESSAGES",
        "TMPDIR", "SHELL", "TERM", "SOLANA_RPC_URL", "SURFNET_RPC_URL", "OMS_OUTPUT_DIR"};
    return names;
}

namespace {

void add_secret_deny(PolicyBuilder& policy, const Layout& l) {
    policy.add(OMS_RULE_READ_DENY_TREE, l.home);
    for (const char* secret : {".ssh", ".config/solana", ".aws", "Library", ".config/gh", ".docker", ".netrc", ".npmrc"})
        policy.add(OMS_RULE_READ_DENY, l.home + "/" + secret);
    policy.add(OMS_RULE_READ_DENY_SUFFIX, "-keypair.json");
    policy.add(OMS_RULE_READ_DENY_SUFFIX, "/id.json");
    policy.add(OMS_RULE_IPC_DENY_SERVICE, "com.apple.SecurityServer");
    policy.add(OMS_RULE_IPC_DENY_SERVICE, "com.apple.securityd");
}

void add_toolchain_roots(PolicyBuilder& policy, const Layout& l) {
    policy.add(OMS_RULE_READ_ALLOW_TREE, l.worktree);
    for (const char* root : {".cargo", ".rustup", ".local/share/solana", ".nvm", ".cargo/bin"})
        policy.add(OMS_RULE_READ_ALLOW_TREE, l.home + "/" + root);
    policy.add(OMS_RULE_READ_ALLOW_TREE, "/usr/local/bin");  // a PATH entry outside HOME
    policy.add(OMS_RULE_READ_ALLOW_TREE, l.read_only_mount);
    if (!l.surfpool.empty()) policy.add(OMS_RULE_READ_ALLOW_TREE, l.surfpool);
}

void add_write_roots(PolicyBuilder& policy, const Layout& l) {
    for (const auto& root : {l.worktree, l.private_home, l.temp_dir, l.home + "/.cargo/registry", l.home + "/.cargo/git"})
        policy.add(OMS_RULE_WRITE_ALLOW_TREE, root);
    policy.add(OMS_RULE_WRITE_DENY, l.worktree + "/.git");
    policy.add(OMS_RULE_WRITE_DENY_NAME, ".git");
    for (const auto& pinned : l.pinned) policy.add(OMS_RULE_WRITE_DENY, pinned);
}

void add_environment(PolicyBuilder& policy, const Layout& l) {
    for (const auto& name : allowlisted_names()) policy.add(OMS_RULE_ENV_PASS, name);
    policy.env = {"PATH=/usr/bin:/bin", "HOME=" + l.private_home, "TMPDIR=" + l.temp_dir, "LANG=C.UTF-8"};
}

void add_network(PolicyBuilder& policy, const Layout& l) {
    policy.add(OMS_RULE_NET_CONNECT_LOOPBACK, "", 8899);
    if (l.surfpool.empty()) return;
    policy.add(OMS_RULE_NET_CONNECT_LOOPBACK, "", 8900);
    policy.add(OMS_RULE_NET_CONNECT_LOOPBACK, "", 9900);
    policy.add(OMS_RULE_NET_LISTEN_LOOPBACK, l.surfpool, 0);
}

}  // namespace

PolicyBuilder mirror_policy(const Layout& layout) {
    PolicyBuilder policy;
    add_environment(policy, layout);
    add_toolchain_roots(policy, layout);
    add_secret_deny(policy, layout);
    add_write_roots(policy, layout);
    add_network(policy, layout);
    return policy;
}

std::vector<oms::sdk::Rule> rules_of(PolicyBuilder& builder) { return oms::sdk::Policy(builder.build()).rules(); }

}  // namespace oms::test::seatbelt
