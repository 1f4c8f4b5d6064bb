// oms explain through the real binary, without running anything: every
// backend answers (seatbelt on Linux too, host-null), usage errors are
// clear, the JSON carries the deciding rule and its origin, and the
// user-level keypair exemption shows as the deciding rule.
#include "oms_env.hpp"

#include <catch2/catch.hpp>

using namespace oms::test;

TEST_CASE("oms explain answers for every backend and runs nothing") {
    OmsEnv env;
    write_file(env.home + "/.ssh/id_rsa", "KEY");
    write_file(env.worktree + "/deploy-keypair.json", "[1]");
    SECTION("seatbelt, rendered on any machine: read denies and suffixes refuse") {
        auto r = env.oms({"explain", "--sandbox", "seatbelt", "read", env.home + "/.ssh/id_rsa", "deploy-keypair.json",
                          "/etc/hostname"});
        INFO(r.err);
        REQUIRE(r.exit_code == 0);
        CHECK_THAT(r.out, Catch::Contains("read " + env.home + "/.ssh/id_rsa: denied under seatbelt"));
        CHECK_THAT(r.out, Catch::Contains("rule: read-deny " + env.home + "/.ssh  (secret-deny: ~/.ssh)"));
        CHECK_THAT(r.out, Catch::Contains("read deploy-keypair.json: denied under seatbelt"));
        CHECK_THAT(r.out, Catch::Contains("rule: read-deny-suffix -keypair.json  (secret-deny: keypair file)"));
        CHECK_THAT(r.out, Catch::Contains("read /etc/hostname: allowed under seatbelt"));  // positive control
    }
    SECTION("host-null: nothing is enforced") {
        auto r = env.oms({"explain", "--sandbox", "host-null", "write", "/etc/passwd"});
        CHECK(r.exit_code == 0);
        CHECK_THAT(r.out, Catch::Contains("write /etc/passwd: allowed under host-null"));
    }
    SECTION("JSON: verdict, rule and origin per target") {
        auto r = env.oms({"explain", "--sandbox", "seatbelt", "--json", "write", ".git/config", "src/x"});
        INFO(r.err);
        REQUIRE(r.exit_code == 0);
        CHECK_THAT(r.out, Catch::StartsWith("{\"backend\":\"seatbelt\",\"access\":\"write\",\"answers\":["));
        CHECK_THAT(r.out, Catch::Contains("\"verdict\":\"allowed\",\"because\":\"inside a write root\""));
        CHECK_THAT(r.out, Catch::Contains("\"origin\":\"write-roots: worktree\""));
    }
    SECTION("exec of a bare name searches the command's PATH; a missing path is said to be missing") {
        auto r = env.oms({"explain", "--sandbox", "seatbelt", "exec", "sh", "no-such-tool-4711"});
        INFO(r.out << r.err);
        REQUIRE(r.exit_code == 0);
        CHECK_THAT(r.out, Catch::Contains("note: found on the command's PATH as /usr/bin/sh") ||
                              Catch::Contains("note: found on the command's PATH as /bin/sh"));
        CHECK_THAT(r.out, Catch::Contains("'no-such-tool-4711' is not on the command's PATH"));
        auto missing = env.oms({"explain", "--sandbox", "seatbelt", "read", "nosuchfile", "deploy-keypair.json"});
        INFO(missing.out);
        CHECK_THAT(missing.out, Catch::Contains("/nosuchfile does not exist now"));
        // Positive control: an existing file carries no such note.
        CHECK_THAT(missing.out, !Catch::Contains("deploy-keypair.json does not exist"));
    }
    SECTION("usage errors") {
        auto unknown = env.oms({"explain", "frob", "x"});
        CHECK(unknown.exit_code == 2);
        CHECK_THAT(unknown.err, Catch::Contains("unknown access 'frob'"));
        auto missing = env.oms({"explain", "read"});
        CHECK(missing.exit_code == 2);
        CHECK_THAT(missing.err, Catch::Contains("at least one target"));
        auto help = env.oms({"explain", "--help"});
        CHECK(help.exit_code == 0);
        CHECK_THAT(help.out, Catch::Contains("usage: oms explain") && !Catch::Contains("--words"));
    }
    SECTION("the user's keypair_exempt decides, a worktree's is refused") {
        write_file(env.worktree + "/node_modules/p/locales/id.json", "{}");
        env.user_config("[plugin.secret-deny]\nkeypair_exempt = [\"node_modules/**/locales/id.json\"]\n");
        auto r = env.oms({"explain", "--sandbox", "seatbelt", "read", "node_modules/p/locales/id.json",
                          "deploy-keypair.json"});
        INFO(r.err);
        REQUIRE(r.exit_code == 0);
        CHECK_THAT(r.out, Catch::Contains("read node_modules/p/locales/id.json: allowed under seatbelt"));
        CHECK_THAT(r.out, Catch::Contains("keypair_exempt (user config): node_modules/**/locales/id.json"));
        CHECK_THAT(r.out, Catch::Contains("read deploy-keypair.json: denied under seatbelt"));
        env.worktree_config("[plugin.secret-deny]\nkeypair_exempt = [\"deploy-keypair.json\"]\n");
        auto refused = env.oms({"explain", "--sandbox", "seatbelt", "read", "deploy-keypair.json"});
        CHECK(refused.exit_code == 78);
        CHECK_THAT(refused.err, Catch::Contains("keypair_exempt") && Catch::Contains("user config"));
    }
}

TEST_CASE("oms explain connect HOST, oms policy and oms doctor show the egress allowlist", "[egress]") {
    OmsEnv env;
    SECTION("without allow_hosts: a host is denied, and the way to allow it is named") {
        auto r = env.oms({"explain", "--sandbox", "seatbelt", "connect", "registry.npmjs.org"});
        INFO(r.err);
        REQUIRE(r.exit_code == 0);
        CHECK_THAT(r.out, Catch::Contains("connect registry.npmjs.org: denied under seatbelt"));
        CHECK_THAT(r.out, Catch::Contains("note: [network] allow_hosts (or --allow-host) would let the command reach it"));
        auto doctor = env.oms({"doctor"});
        CHECK_THAT(doctor.out, Catch::Contains("no host beyond the allowed local ports: [network] allow_hosts is empty"));
    }
    SECTION("with allow_hosts: allowed names, denied names, ports, the rule and its file:line") {
        env.user_config("[network]\nallow_hosts = [\"registry.npmjs.org\", \"*.crates.io\", \"github.com:443\"]\n"
                        "deny_hosts = [\"bad.crates.io\"]\n");
        auto r = env.oms({"explain", "--sandbox", "landlock", "connect", "registry.npmjs.org:443", "static.crates.io",
                          "bad.crates.io", "github.com:22", "example.com:80", "8899"});
        INFO(r.out << r.err);
        REQUIRE(r.exit_code == 0);
        const std::string file = env.config_home + "/oms/config.toml:2";
        CHECK_THAT(r.out, Catch::Contains("connect registry.npmjs.org:443: allowed under landlock"));
        CHECK_THAT(r.out, Catch::Contains("why: through oms's egress proxy: allow_hosts \"registry.npmjs.org\" (" + file));
        CHECK_THAT(r.out, Catch::Contains("connect static.crates.io: allowed under landlock"));
        CHECK_THAT(r.out, Catch::Contains("note: no port given: the verdict is for port 443"));
        CHECK_THAT(r.out, Catch::Contains("connect bad.crates.io: denied under landlock"));
        CHECK_THAT(r.out, Catch::Contains("why: oms's egress proxy: deny_hosts \"bad.crates.io\""));
        CHECK_THAT(r.out, Catch::Contains("connect github.com:22: denied under landlock"));
        CHECK_THAT(r.out, Catch::Contains("connect example.com:80: denied under landlock"));
        CHECK_THAT(r.out, Catch::Contains("note: data the command can read may leave through this host"));
        CHECK_THAT(r.out, Catch::Contains("connect 8899: allowed under landlock"));  // the Surfnet, as before
        auto policy = env.oms({"policy", "--sandbox", "landlock"});
        CHECK_THAT(policy.out, Catch::Contains("allowed through oms's proxy: *.crates.io (any port)"));
        CHECK_THAT(policy.out, Catch::Contains("denied: bad.crates.io"));
        CHECK_THAT(policy.out, Catch::Contains("not protected: the command can send anything it reads"));
        auto doctor = env.oms({"doctor", "--json"});
        CHECK_THAT(doctor.out, Catch::Contains("\"egress\":[\"allowed through oms's proxy: registry.npmjs.org (any port)"));
    }
    SECTION("--allow-host adds a host for one command") {
        auto r = env.oms({"explain", "--sandbox", "landlock", "--allow-host", "pkg.test:8080", "connect",
                          "pkg.test:8080", "pkg.test:8081"});
        CHECK_THAT(r.out, Catch::Contains("connect pkg.test:8080: allowed under landlock"));
        CHECK_THAT(r.out, Catch::Contains("allow_hosts \"pkg.test:8080\" (--allow-host)"));
        CHECK_THAT(r.out, Catch::Contains("connect pkg.test:8081: denied under landlock"));
    }
    SECTION("--last before any run says so") {
        auto r = env.oms({"explain", "--last"});
        CHECK(r.exit_code == 0);
        CHECK_THAT(r.out, Catch::Contains("no run has ended yet"));
        auto j = env.oms({"explain", "--last", "--json"});
        CHECK(j.out == "{\"recorded\":false}\n");
    }
}
