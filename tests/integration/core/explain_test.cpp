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
