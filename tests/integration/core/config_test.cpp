// Bad configuration is an error naming the file, line and key, and nothing
// runs. A worktree's own config may only narrow the policy.
#include "oms_env.hpp"

#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <unistd.h>

using namespace oms::test;

namespace {

const std::vector<std::string> kTouch{"run", "--sandbox", "host-null", "--yes", "--", "/bin/sh", "-c", "touch ran"};

// fixture-config declares `level` (integer, narrows).
struct ConfigEnv : OmsEnv {
    ConfigEnv() { env["OMS_PLUGIN_PATH"] = OMS_CONFIG_FIXTURE_DIR; }
};

void expect_refused(const OmsEnv& env, const std::string& message) {
    ProcessResult run = env.oms(kTouch);
    INFO(run.err);
    CHECK(run.exit_code == 78);
    CHECK_THAT(run.err, Catch::Contains(message));
    CHECK_FALSE(exists(env.worktree + "/ran"));
}

}  // namespace

TEST_CASE("malformed TOML names the file and line") {
    ConfigEnv env;
    env.user_config("[sandbox]\nbackend = \"host-null\"\nread_only = [\n");
    expect_refused(env, env.config_home + "/oms/config.toml:");
    expect_refused(env, "malformed TOML");
}

// toml++ 3.3 meets undefined behaviour asking whether such a character is
// whitespace (found by fuzzing): it is refused before toml++ sees it.
TEST_CASE("a non-ASCII character outside a string is refused before the TOML parser sees it") {
    ConfigEnv env;
    env.worktree_config("[sandbox]\npinned = [\"x\"] \xc2\xa7\n");
    expect_refused(env, env.worktree + "/.oms/config.toml:2: malformed TOML: a non-ASCII character outside a string "
                                       "or a comment (TOML allows none there)");
    // Positive control: non-ASCII text in a string and a comment is read.
    OmsEnv fine;
    fine.worktree_config("# caf\xc3\xa9\n[sandbox]\npinned = [\"caf\xc3\xa9.txt\"]\n");
    ProcessResult run = fine.oms(kTouch);
    INFO(run.err);
    CHECK(run.exit_code == 0);
    CHECK(exists(fine.worktree + "/ran"));
}

TEST_CASE("an unknown key names file, line and key") {
    ConfigEnv env;
    env.user_config("[sandbox]\nbackend = \"auto\"\nbakend = \"host-null\"\n");
    expect_refused(env, env.config_home + "/oms/config.toml:3: key 'sandbox.bakend': unknown key");
}

TEST_CASE("an unknown key in a plugin's table names the plugin's table") {
    ConfigEnv env;
    env.user_config("[plugin.fixture-config]\nlevel = 2\nlevle = 3\n");
    expect_refused(env, "config.toml:3: key 'plugin.fixture-config.levle': unknown key (known keys: level)");
}

TEST_CASE("an unknown guarantee in [sandbox] require names file, line, key and the known ones") {
    ConfigEnv env;
    env.user_config("[sandbox]\nrequire = [\n  \"file-rules\",\n  \"private-netwrok\",\n]\n");
    expect_refused(env, env.config_home + "/oms/config.toml:4: key 'sandbox.require': unknown guarantee "
                        "'private-netwrok' (known: file-rules, private-network, private-tmp, process-isolation)");
}

TEST_CASE("[sandbox] require refuses a backend that names none of its guarantees, in one line") {
    ConfigEnv env;
    env.user_config("[sandbox]\nrequire = [\"private-network\"]\n");
    ProcessResult run = env.oms(kTouch);
    INFO(run.err);
    CHECK(run.exit_code == 69);
    CHECK_THAT(run.err, Catch::Contains("backend 'host-null' (chosen by --sandbox) cannot run here (nothing ran): "
                                        "[sandbox] require (" + env.config_home +
                                        "/oms/config.toml:2) asks for private-network, which it does not give here "
                                        "(it gives: none named)"));
    CHECK_FALSE(exists(env.worktree + "/ran"));
}

TEST_CASE("a wrong type names the expected type") {
    ConfigEnv env;
    env.user_config("[plugin.fixture-config]\nlevel = \"high\"\n");
    expect_refused(env, "config.toml:2: key 'plugin.fixture-config.level': expected integer");
    env.user_config("[sandbox]\nread_only = \"/opt\"\n");
    expect_refused(env, "config.toml:2: key 'sandbox.read_only': expected array of strings");
}

TEST_CASE("a number where a string is declared reaches the plugin as its text") {
    ConfigEnv env;
    // `backend` is a string key: 5 is taken as "5" (no such backend), not
    // refused as the wrong type.
    env.user_config("[sandbox]\nbackend = 5\n");
    ProcessResult run = env.oms({"run", "--yes", "--", "/bin/true"});
    INFO(run.err);
    CHECK(run.exit_code == 69);
    CHECK_THAT(run.err, Catch::Contains("backend '5' (chosen by config ("));
    CHECK_THAT(run.err, !Catch::Contains("expected string"));
}

TEST_CASE("a value a plugin refuses is a config error naming the file, line and key") {
    ConfigEnv env;
    env.user_config("[sandbox]\nbackend = \"host-null\"\n\n[plugin.network]\nsurfnet_port = 99999\n");
    expect_refused(env, env.config_home + "/oms/config.toml:5: [plugin.network] surfnet_port: 99999 is not a TCP port");
    // Positive control: a port in range runs.
    env.user_config("[sandbox]\nbackend = \"host-null\"\n\n[plugin.network]\nsurfnet_port = 8899\n");
    ProcessResult run = env.oms(kTouch);
    INFO(run.err);
    CHECK(run.exit_code == 0);
    CHECK(exists(env.worktree + "/ran"));
}

TEST_CASE("a plugin's warning that names its table is not prefixed with its id again") {
    ConfigEnv env;
    env.user_config("[plugin.env-allowlist]\nextra = [\"AWS_SECRET_ACCESS_KEY\"]\n");
    ProcessResult run = env.oms(kTouch);
    INFO(run.err);
    CHECK(run.exit_code == 0);
    CHECK_THAT(run.err, Catch::Contains("oms: warning: [plugin.env-allowlist] extra: 'AWS_SECRET_ACCESS_KEY' looks "
                                        "like a credential"));
    CHECK_THAT(run.err, !Catch::Contains("[env-allowlist] [plugin.env-allowlist]"));
}

TEST_CASE("a table for a plugin that is not loaded is refused") {
    ConfigEnv env;
    env.user_config("[plugin.not-installed]\nx = 1\n");
    expect_refused(env, "key 'plugin.not-installed': no plugin with this id is loaded");
}

TEST_CASE("a worktree config cannot widen the policy") {
    ConfigEnv env;
    env.worktree_config("[sandbox]\nread_write = [\"/\"]\n");
    expect_refused(env, ".oms/config.toml:2: key 'sandbox.read_write': refused: a worktree's config may only narrow");
    env.worktree_config("[sandbox]\nbackend = \"host-null\"\n");
    expect_refused(env, "key 'sandbox.backend': refused");
    env.worktree_config("[sandbox]\nplugin_paths = [\"./evil\"]\n");
    expect_refused(env, "key 'sandbox.plugin_paths': refused");
    env.worktree_config("[sandbox]\nbest_effort = true\n");
    expect_refused(env, "key 'sandbox.best_effort': refused");
    env.worktree_config("[sandbox]\nsurfpool = \"/tmp/x\"\n");
    expect_refused(env, "key 'sandbox.surfpool': refused");
    env.worktree_config("[sandbox]\nread_only = [\"/\"]\n");
    expect_refused(env, "key 'sandbox.read_only': refused");
}

TEST_CASE("a worktree config may narrow: pinned files are added to the user's") {
    ConfigEnv env;
    env.user_config("[sandbox]\npinned = [\"a.txt\"]\n");
    env.worktree_config("[sandbox]\npinned = [\"b.txt\"]\n[plugin.fixture-config]\nlevel = 1\n");
    ProcessResult policy = env.oms({"policy", "--sandbox", "host-null"});
    INFO(policy.err);
    REQUIRE(policy.exit_code == 0);
    CHECK_THAT(policy.out, Catch::Contains(env.worktree + "/a.txt"));
    CHECK_THAT(policy.out, Catch::Contains(env.worktree + "/b.txt"));
    // And a run goes ahead.
    ProcessResult run = env.oms(kTouch);
    CHECK(run.exit_code == 0);
    CHECK(exists(env.worktree + "/ran"));
}

TEST_CASE("keys outside a table are refused") {
    ConfigEnv env;
    env.user_config("backend = \"host-null\"\n");
    expect_refused(env, "config.toml:1: key 'backend': keys belong in a table");
}

TEST_CASE("config backend choice, overridden by OMS_SANDBOX, overridden by --sandbox") {
    ConfigEnv env;
    env.user_config("[sandbox]\nbackend = \"no-such-backend\"\n");
    ProcessResult from_config = env.oms({"run", "--yes", "--", "/bin/true"});
    CHECK(from_config.exit_code == 69);
    CHECK_THAT(from_config.err, Catch::Contains("backend 'no-such-backend' (chosen by config ("));
    env.env["OMS_SANDBOX"] = "also-missing";
    ProcessResult from_env = env.oms({"run", "--yes", "--", "/bin/true"});
    CHECK_THAT(from_env.err, Catch::Contains("backend 'also-missing' (chosen by OMS_SANDBOX)"));
    ProcessResult from_flag = env.oms({"run", "--sandbox", "host-null", "--yes", "--", "/bin/true"});
    CHECK(from_flag.exit_code == 0);
}

TEST_CASE("plugin folders must be absolute: a relative one would load code from the worktree") {
    ConfigEnv env;
    env.env["OMS_PLUGIN_PATH"] = "plugins";
    expect_refused(env, "OMS_PLUGIN_PATH: plugin folder 'plugins' is not an absolute path");
    env.env["OMS_PLUGIN_PATH"] = OMS_CONFIG_FIXTURE_DIR;
    env.user_config("[sandbox]\nplugin_paths = [\"evil\"]\n");
    expect_refused(env, "config.toml:2: key 'sandbox.plugin_paths': plugin folder 'evil' is not an absolute path");
}

TEST_CASE("a worktree config that is a FIFO, a link or huge is refused, never waited on or followed") {
    ConfigEnv env;
    const std::string config = env.worktree + "/.oms/config.toml";
    // Positive control: a regular worktree config is read (a narrowing key).
    env.worktree_config("[sandbox]\npinned = [\"p.txt\"]\n");
    ProcessResult plain = env.oms(kTouch);
    INFO(plain.err);
    CHECK(plain.exit_code == 0);
    REQUIRE(unlink((env.worktree + "/ran").c_str()) == 0);

    // A FIFO: a plain open would wait for a writer forever.
    REQUIRE(unlink(config.c_str()) == 0);
    REQUIRE(mkfifo(config.c_str(), 0600) == 0);
    ProcessResult fifo = env.oms(kTouch, ProcessOptions{{}, std::nullopt, "", 20});
    INFO(fifo.err);
    CHECK(fifo.exit_code == 78);
    CHECK_THAT(fifo.err, Catch::Contains(config + ": cannot be used as a config file: not a regular file"));
    CHECK_FALSE(exists(env.worktree + "/ran"));

    // A link to a file the command could not read: not parsed, not quoted.
    REQUIRE(unlink(config.c_str()) == 0);
    write_file(env.home + "/.cargo/credentials.toml", "[registry]\ntoken = \"SECRET-TOKEN-VALUE\"\n");
    REQUIRE(symlink((env.home + "/.cargo/credentials.toml").c_str(), config.c_str()) == 0);
    ProcessResult linked = env.oms(kTouch);
    INFO(linked.err);
    CHECK(linked.exit_code == 78);
    CHECK_THAT(linked.err, Catch::Contains("a symbolic link"));
    CHECK_THAT(linked.err, !Catch::Contains("registry") && !Catch::Contains("SECRET"));

    // The folder .oms as a link is refused the same way.
    REQUIRE(unlink(config.c_str()) == 0);
    REQUIRE(rmdir((env.worktree + "/.oms").c_str()) == 0);
    write_file(env.home + "/elsewhere/config.toml", "[registry]\ntoken = \"SECRET-TOKEN-VALUE\"\n");
    REQUIRE(symlink((env.home + "/elsewhere").c_str(), (env.worktree + "/.oms").c_str()) == 0);
    ProcessResult folder = env.oms(kTouch);
    INFO(folder.err);
    CHECK(folder.exit_code == 78);
    CHECK_THAT(folder.err, Catch::Contains("is a symbolic link or not a folder"));
    CHECK_THAT(folder.err, !Catch::Contains("SECRET"));
    REQUIRE(unlink((env.worktree + "/.oms").c_str()) == 0);

    // More than a megabyte is not parsed.
    env.worktree_config("# " + std::string(1100000, 'x') + "\n");
    ProcessResult huge = env.oms(kTouch);
    INFO(huge.err.substr(0, 300));
    CHECK(huge.exit_code == 78);
    CHECK_THAT(huge.err, Catch::Contains("larger than 1048576 bytes"));
    CHECK_FALSE(exists(env.worktree + "/ran"));
}

TEST_CASE("[network]: a worktree may deny hosts but never allow or pin one; bad patterns name file, line and key",
          "[egress]") {
    ConfigEnv env;
    env.worktree_config("[network]\nallow_hosts = [\"evil.example\"]\n");
    expect_refused(env, "/.oms/config.toml:2: key 'network.allow_hosts': refused: a worktree's config may only narrow");
    env.worktree_config("[network]\npinned_addresses = { \"evil.example\" = \"127.0.0.1\" }\n");
    expect_refused(env, "/.oms/config.toml:2: key 'network.pinned_addresses': refused: a worktree's config may only");
    env.worktree_config("");
    env.user_config("[network]\nallow_hosts = [\"*.com\"]\n");
    expect_refused(env, "config.toml:2: key 'network.allow_hosts': \"*.com\" would allow a whole top-level domain");
    env.user_config("[network]\nallow_hosts = [\"pkg.test\"]\npinned_addresses = { \"pkg.test\" = \"localhost\" }\n");
    expect_refused(env, "config.toml:3: key 'network.pinned_addresses.pkg.test': \"localhost\" is not a numeric");
    env.user_config("[network]\nallow_host = [\"pkg.test\"]\n");
    expect_refused(env, "config.toml:2: key 'network.allow_host': unknown key (known keys: allow_hosts, deny_hosts, publish)");
    // Positive control: the user allows and pins, the worktree denies; it runs.
    env.user_config("[network]\nallow_hosts = [\"pkg.test\", \"*.example.org:443\"]\n"
                    "pinned_addresses = { \"pkg.test\" = \"127.0.0.1\" }\n");
    env.worktree_config("[network]\ndeny_hosts = [\"bad.example.org\"]\n");
    ProcessResult run = env.oms(kTouch);
    INFO(run.err);
    CHECK(run.exit_code == 0);
    CHECK(exists(env.worktree + "/ran"));
    ProcessResult bad_flag = env.oms({"run", "--sandbox", "host-null", "--yes", "--allow-host", "a b", "--", "true"});
    CHECK(bad_flag.exit_code == 78);
    CHECK_THAT(bad_flag.err, Catch::Contains("--allow-host: \"a b\" is not a host name"));
}
