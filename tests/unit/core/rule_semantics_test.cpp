// The precedence table of docs/rule-semantics.md, row by row, on a
// constructed policy: which rule decides, per backend family where they differ.
#include "oms/core/rule_semantics.hpp"

#include "temp_dir.hpp"

#include <catch2/catch.hpp>

using namespace oms::core;
using oms::test::TempDir;
using oms::test::write_file;

namespace {

struct Table {
    TempDir tmp{"oms-rule-semantics"};
    std::string home = tmp / "home", work = tmp / "home/work", outside = tmp / "opt";
    Policy policy;
    SemanticsInputs inputs;
    Table() {
        write_file(work + "/deploy-keypair.json", "K");
        write_file(work + "/sub/.git/config", "G");
        write_file(outside + "/other-keypair.json", "K");
        auto add = [&](oms_rule_kind kind, const std::string& value, int64_t number = 0) {
            policy.rules.push_back(PolicyRule{kind, value, number, "test: row"});
        };
        add(OMS_RULE_READ_DENY_TREE, home);
        add(OMS_RULE_READ_ALLOW_TREE, work);
        add(OMS_RULE_READ_DENY, home + "/.ssh");
        add(OMS_RULE_READ_DENY, work + "/secret");
        add(OMS_RULE_READ_DENY_SUFFIX, "-keypair.json");
        add(OMS_RULE_WRITE_ALLOW_TREE, work);
        add(OMS_RULE_WRITE_ALLOW_TREE, home + "/.cache");
        add(OMS_RULE_WRITE_DENY, work + "/.git");
        add(OMS_RULE_WRITE_DENY_NAME, ".git");
        add(OMS_RULE_WRITE_SCRATCH_TREE, home + "/.cargo/registry");
        add(OMS_RULE_NET_CONNECT_LOOPBACK, "", 8899);
        add(OMS_RULE_ENV_PASS, "PATH");
        policy.env = {"PATH=/usr/bin"};
        inputs.home = home;
        inputs.worktree = work;
    }
    Verdict verdict(Access access, const std::string& target) { return decide(policy, inputs, access, target).verdict; }
    std::string rule(Access access, const std::string& target) {
        auto d = decide(policy, inputs, access, target);
        return d.rule ? rule_kind_name(d.rule->kind) : "none";
    }
};

}  // namespace

TEST_CASE("reads: deny beats allow at any depth, allow beats the denied tree", "[rule-semantics]") {
    Table t;
    // Landlock: HOME inside is a skeleton of the granted paths, the rest of it absent.
    CHECK(t.verdict(Access::read, t.home + "/.ssh/id_rsa") == Verdict::hidden);
    CHECK(t.verdict(Access::read, t.home + "/.ssh") == Verdict::hidden);
    CHECK(t.verdict(Access::read, t.home) == Verdict::hidden);  // lists only the granted names
    CHECK(decide(t.policy, t.inputs, Access::read, t.home).because.find("a folder of HOME's skeleton") == 0);
    CHECK(decide(t.policy, t.inputs, Access::read, t.home + "/other").because.find("this name is absent") !=
          std::string::npos);
    CHECK(t.verdict(Access::read, t.work + "/secret/x") == Verdict::hidden);  // a deny inside an allowed root
    CHECK(t.verdict(Access::read, t.work + "/src/main.rs") == Verdict::allowed);
    CHECK(t.rule(Access::read, t.work + "/src/main.rs") == "read-allow-tree");
    CHECK(t.verdict(Access::read, t.home + "/other/file") == Verdict::hidden);
    CHECK(t.rule(Access::read, t.home + "/other/file") == "read-deny-tree");
    CHECK(t.verdict(Access::read, "/etc/passwd") == Verdict::allowed);
    CHECK(t.rule(Access::read, "/etc/passwd") == "none");
    CHECK(t.verdict(Access::read, "/") == Verdict::allowed);  // listing from the root down
    CHECK(t.verdict(Access::read, t.tmp.path()) == Verdict::allowed);  // a folder above HOME
    CHECK(t.verdict(Access::read, "/dev") == Verdict::allowed);
    CHECK(t.verdict(Access::read, "/dev/sda") == Verdict::denied);
    t.inputs.family = BackendFamily::seatbelt;
    CHECK(t.verdict(Access::read, t.home + "/.ssh") == Verdict::denied);
    CHECK(t.verdict(Access::read, t.home + "/other/file") == Verdict::denied);
}

TEST_CASE("reads: without a skeleton (a write root holds HOME) landlock refuses HOME and the folders above it",
          "[rule-semantics]") {
    Table t;
    t.policy.rules.push_back(PolicyRule{OMS_RULE_WRITE_ALLOW_TREE, t.tmp.path(), 0, "test: row"});
    CHECK(t.verdict(Access::read, t.home + "/.ssh/id_rsa") == Verdict::hidden);  // below a covered folder
    CHECK(t.verdict(Access::read, t.home + "/.ssh") == Verdict::denied);  // the denied tree decides first
    CHECK(t.verdict(Access::read, t.home + "/other/file") == Verdict::denied);
    CHECK(t.verdict(Access::read, "/") == Verdict::denied);
    CHECK(t.verdict(Access::read, "/dev") == Verdict::denied);
    CHECK(t.verdict(Access::read, "/etc/passwd") == Verdict::allowed);
}

TEST_CASE("reads: a suffix hides a keypair found at run start; outside the walked roots only on seatbelt",
          "[rule-semantics]") {
    Table t;
    // landlock: a file found at start fails to open (its cover is a device
    // that refuses), as a denied read; docker covers it with an empty file.
    CHECK(t.verdict(Access::read, t.work + "/deploy-keypair.json") == Verdict::denied);
    t.inputs.family = BackendFamily::docker;
    CHECK(t.verdict(Access::read, t.work + "/deploy-keypair.json") == Verdict::hidden);
    t.inputs.family = BackendFamily::landlock;
    CHECK(t.rule(Access::read, t.work + "/deploy-keypair.json") == "read-deny-suffix");
    CHECK(t.verdict(Access::read, t.work + "/later-keypair.json") == Verdict::allowed);  // not there at start
    CHECK(t.verdict(Access::read, t.outside + "/other-keypair.json") == Verdict::allowed);
    t.inputs.family = BackendFamily::seatbelt;
    CHECK(t.verdict(Access::read, t.work + "/later-keypair.json") == Verdict::denied);  // a refusal there
    CHECK(t.verdict(Access::read, t.outside + "/other-keypair.json") == Verdict::denied);
}

TEST_CASE("reads: a write root below the denied tree is readable on landlock, not on seatbelt", "[rule-semantics]") {
    Table t;
    CHECK(t.verdict(Access::read, t.home + "/.cache/x") == Verdict::allowed);
    CHECK(t.rule(Access::read, t.home + "/.cache/x") == "write-allow-tree");
    t.inputs.family = BackendFamily::seatbelt;
    CHECK(t.verdict(Access::read, t.home + "/.cache/x") == Verdict::denied);
}

TEST_CASE("writes: denies beat the write root, scratch differs per backend", "[rule-semantics]") {
    Table t;
    CHECK(t.verdict(Access::write, t.work + "/a.txt") == Verdict::allowed);
    CHECK(t.rule(Access::write, t.work + "/.git/config") == "write-deny");
    CHECK(t.rule(Access::write, t.work + "/sub/.git/config") == "write-deny-name");
    CHECK(t.verdict(Access::write, t.work + "/sub/.git/config") == Verdict::denied);
    CHECK(t.verdict(Access::write, t.work + "/deploy-keypair.json") == Verdict::denied);
    CHECK(t.verdict(Access::write, "/etc/passwd") == Verdict::denied);
    CHECK(t.verdict(Access::write, t.home + "/.cargo/registry/x") == Verdict::allowed);
    CHECK(t.verdict(Access::write, t.work + "/new/.git/x") == Verdict::allowed);  // made during the run
    oms::test::write_file(t.home + "/.cache/dep/.git/config", "G");  // a write root landlock does not walk
    CHECK(t.verdict(Access::write, t.home + "/.cache/dep/.git/config") == Verdict::allowed);
    t.inputs.family = BackendFamily::seatbelt;
    CHECK(t.verdict(Access::write, t.home + "/.cargo/registry/x") == Verdict::denied);
    CHECK(t.verdict(Access::write, t.work + "/new/.git/x") == Verdict::denied);
}

TEST_CASE("ports and variables", "[rule-semantics]") {
    Table t;
    CHECK(t.verdict(Access::connect, "8899") == Verdict::allowed);
    CHECK(t.verdict(Access::connect, "127.0.0.1:8899") == Verdict::allowed);
    CHECK(t.verdict(Access::connect, "127.0.0.1:22") == Verdict::denied);
    CHECK(t.verdict(Access::connect, "example.com:443") == Verdict::denied);
    CHECK(t.verdict(Access::connect, "not-a-port") == Verdict::denied);
    // Landlock, no trusted listener: the private loopback, but not the relayed port.
    CHECK(t.verdict(Access::listen, "8899") == Verdict::denied);
    CHECK(t.rule(Access::listen, "8899") == "net-connect-loopback");
    CHECK(t.verdict(Access::listen, "127.0.0.1:3000") == Verdict::allowed);
    CHECK(t.verdict(Access::listen, "127.0.0.1:0") == Verdict::allowed);
    CHECK(t.verdict(Access::listen, "0.0.0.0:3000") == Verdict::denied);
    // A trusted listener shares the host's network: only its port.
    t.policy.rules.push_back(PolicyRule{OMS_RULE_NET_LISTEN_LOOPBACK, "/usr/bin/surfpool", 8899, "test: row"});
    t.inputs.program = "/usr/bin/surfpool";
    CHECK(t.verdict(Access::listen, "127.0.0.1:8899") == Verdict::allowed);
    CHECK(t.verdict(Access::listen, "127.0.0.1:3000") == Verdict::denied);
    t.inputs.program = "/usr/bin/node";
    CHECK(t.verdict(Access::listen, "127.0.0.1:3000") == Verdict::allowed);
    t.inputs.family = BackendFamily::seatbelt;  // the host's loopback: only the trusted listener rule
    CHECK(t.verdict(Access::listen, "127.0.0.1:3000") == Verdict::denied);
    t.inputs.family = BackendFamily::docker;
    CHECK(t.verdict(Access::connect, "8899") == Verdict::allowed);          // relayed to the host by oms
    CHECK(t.verdict(Access::connect, "[::1]:8899") == Verdict::denied);     // only 127.0.0.1 is relayed
    CHECK(t.verdict(Access::listen, "127.0.0.1:8899") == Verdict::denied);  // the runner holds the port
    CHECK(t.verdict(Access::listen, "127.0.0.1:3000") == Verdict::allowed); // the container's own loopback
    CHECK(t.verdict(Access::env, "PATH") == Verdict::allowed);
    CHECK(t.verdict(Access::env, "AWS_SECRET_ACCESS_KEY") == Verdict::denied);
}

TEST_CASE("listen: a published port of the own loopback is the host's way in too, landlock and docker",
          "[rule-semantics]") {
    for (BackendFamily family : {BackendFamily::landlock, BackendFamily::docker}) {
        Table t;
        t.inputs.family = family;
        t.policy.rules.push_back(PolicyRule{OMS_RULE_NET_PUBLISH_LOOPBACK, "", 5173, "test: --publish"});
        const Decision published = decide(t.policy, t.inputs, Access::listen, "127.0.0.1:5173");
        CHECK(published.verdict == Verdict::allowed);
        REQUIRE(published.rule);
        CHECK(published.rule->kind == OMS_RULE_NET_PUBLISH_LOOPBACK);
        CHECK(published.notes == std::vector<std::string>{
                                     "published: the host's 127.0.0.1:5173 (and [::1]:5173) reaches a server "
                                     "listening here while a run lives"});
        // The control: another port of the own loopback is the task's alone.
        const Decision other = decide(t.policy, t.inputs, Access::listen, "127.0.0.1:5174");
        CHECK(other.verdict == Verdict::allowed);
        CHECK_FALSE(other.rule.has_value());
        REQUIRE(other.notes.size() == 1);
        CHECK(other.notes[0] == (family == BackendFamily::landlock ? "reachable from the task's runs only"
                                                                    : "reachable from inside the container only"));
    }
}

TEST_CASE("env: USER and LOGNAME are explained as oms's values, not the caller's", "[rule-semantics]") {
    Table t;
    t.policy.rules.push_back(PolicyRule{OMS_RULE_ENV_PASS, "USER", 0, "test: row"});
    t.policy.rules.push_back(PolicyRule{OMS_RULE_ENV_PASS, "LOGNAME", 0, "test: row"});
    t.policy.env.push_back("USER=ada");  // LOGNAME left out: as when the uid has no password entry
    const Decision user = decide(t.policy, t.inputs, Access::env, "USER");
    CHECK(user.verdict == Verdict::allowed);
    CHECK(user.because == "set by oms to the uid's user name, never the caller's value");
    const Decision logname = decide(t.policy, t.inputs, Access::env, "LOGNAME");
    CHECK(logname.verdict == Verdict::denied);
    CHECK(logname.because == "the uid has no password entry: left unset");
    CHECK(decide(t.policy, t.inputs, Access::env, "PATH").because == "passed by name");  // the others unchanged
}

TEST_CASE("env: HOME and TMPDIR are explained as the run's private folders", "[rule-semantics]") {
    Table t;
    for (const char* name : {"HOME", "TMPDIR", "PATH"})
        t.policy.rules.push_back(PolicyRule{OMS_RULE_ENV_PASS, name, 0, "test: row"});
    t.policy.env = {"HOME=/run/private-home", "TMPDIR=/run/private-tmp", "PATH=/usr/bin"};
    for (const char* name : {"HOME", "TMPDIR"}) {
        const Decision d = decide(t.policy, t.inputs, Access::env, name);
        CHECK(d.verdict == Verdict::allowed);
        CHECK(d.because == "set by oms to the run's private folder, never the caller's value");
    }
    CHECK(decide(t.policy, t.inputs, Access::env, "PATH").because == "passed by name");  // a caller's value
}
