// The smaller commands: --version, --help everywhere, plugins, policy,
// settings, doctor's lines for host-null.
#include "oms_env.hpp"

#include <catch2/catch.hpp>

using namespace oms::test;

TEST_CASE("--version and --help on every command") {
    OmsEnv env;
    ProcessResult version = env.oms({"--version"});
    CHECK(version.exit_code == 0);
    CHECK_THAT(version.out, Catch::StartsWith("oms ") && Catch::Contains("plugin ABI 1.6"));
    for (const char* command : {"run", "doctor", "policy", "plugins", "settings", "task"}) {
        ProcessResult help = env.oms({command, "--help"});
        INFO(command << ": " << help.err);
        CHECK(help.exit_code == 0);
        CHECK_THAT(help.out, Catch::Contains("usage: oms"));
    }
    ProcessResult unknown = env.oms({"frobnicate"});
    CHECK(unknown.exit_code == 2);
    CHECK_THAT(unknown.err, Catch::Contains("unknown command 'frobnicate'"));
}

TEST_CASE("doctor with host-null says the spec's line and lists the plugins") {
    OmsEnv env;
    ProcessResult doctor = env.oms({"doctor", "--sandbox", "host-null"});
    INFO(doctor.out << doctor.err);
    CHECK(doctor.exit_code == 0);
    CHECK_THAT(doctor.out, Catch::Contains("confinement: host (no sandbox; unrestricted network)"));
    CHECK_THAT(doctor.out, Catch::Contains("settings: No sandbox. Commands need approval; network is unrestricted."));
    for (const char* id : {"host-null", "env-allowlist", "network", "secret-deny", "toolchain-roots", "write-roots"})
        CHECK_THAT(doctor.out, Catch::Contains(id));
    CHECK_THAT(doctor.out, Catch::Contains(env.config_home + "/oms/config.toml (not found)"));
    // Each plugin's descriptor summary, under its file line.
    CHECK_THAT(doctor.out, Catch::Contains("oms-host-null.so\n      no sandbox: scrubbed env, private HOME, approval for "
                                           "every command\n"));
    CHECK_THAT(doctor.out, Catch::Contains("oms-landlock.so\n      Linux host mode confined by Landlock"));
}

TEST_CASE("settings shows the settings line") {
    OmsEnv env;
    ProcessResult settings = env.oms({"settings", "--sandbox", "host-null"});
    CHECK(settings.exit_code == 0);
    CHECK_THAT(settings.out, Catch::Contains("No sandbox. Commands need approval; network is unrestricted."));
}

TEST_CASE("policy shows rules, environment and the backend's rendering without running anything") {
    OmsEnv env;
    env.env["AWS_SECRET_ACCESS_KEY"] = "nope";
    ProcessResult policy = env.oms({"policy", "--sandbox", "host-null", "--ro", "/opt", "--", "/bin/sh", "-c", "touch ran"});
    INFO(policy.out << policy.err);
    REQUIRE(policy.exit_code == 0);
    CHECK_THAT(policy.out, Catch::Contains("read-deny-tree"));
    CHECK_THAT(policy.out, Catch::Contains(env.home + "/.ssh"));
    CHECK_THAT(policy.out, Catch::Contains("write-allow-tree"));
    CHECK_THAT(policy.out, Catch::Contains("net-connect-loopback"));
    CHECK_THAT(policy.out, Catch::Contains("PATH=/usr/local/bin:/usr/bin:/bin"));
    CHECK_THAT(policy.out, !Catch::Contains("AWS_SECRET_ACCESS_KEY"));
    CHECK_THAT(policy.out, Catch::Contains("host-null enforces nothing"));
    CHECK_FALSE(exists(env.worktree + "/ran"));
    ProcessResult json = env.oms({"policy", "--sandbox", "host-null", "--json"});
    CHECK_THAT(json.out, Catch::Contains("\"kind\":\"read-deny-tree\""));
}

TEST_CASE("plugins lists each plugin with its status") {
    OmsEnv env;
    ProcessResult plugins = env.oms({"plugins"});
    CHECK(plugins.exit_code == 0);
    CHECK_THAT(plugins.out, Catch::Contains("host-null"));
    CHECK_THAT(plugins.out, Catch::Contains("policy"));
    ProcessResult json = env.oms({"plugins", "--json"});
    CHECK_THAT(json.out, Catch::Contains("\"id\":\"host-null\""));
}

namespace {

// The test tree may sit below /tmp (a CI clone); name a system temp folder of
// our own so the probe's "outside" folder is not inside a write root.
void private_system_temp(const OmsEnv& env) {
    make_dirs(env.root / "system-temp");
    env.user_config("[plugin.write-roots]\ntemp_dirs = [\"" + (env.root / "system-temp") + "\"]\n");
}

}  // namespace

TEST_CASE("doctor --probe tells the truth about host-null: only the environment scrub holds") {
    OmsEnv env;
    private_system_temp(env);
    ProcessResult probe = env.oms({"doctor", "--probe", "--sandbox", "host-null"});
    INFO(probe.out << probe.err);
    CHECK(probe.exit_code == 1);
    CHECK_THAT(probe.out, Catch::Contains("FAIL  read ~/.ssh: NOT blocked: the secret came out"));
    CHECK_THAT(probe.out, Catch::Contains("FAIL  read *-keypair.json in the worktree: NOT blocked"));
    CHECK_THAT(probe.out, Catch::Contains("FAIL  write outside the worktree: NOT blocked"));
    CHECK_THAT(probe.out, Catch::Contains("FAIL  write the task's .git: NOT blocked"));
    CHECK_THAT(probe.out, Catch::Contains("FAIL  connect to a refused loopback port: NOT blocked"));
    CHECK_THAT(probe.out, Catch::Contains("pass  scrubbed variable (AWS_SECRET_ACCESS_KEY): blocked; control worked"));
    ProcessResult json = env.oms({"doctor", "--probe", "--json", "--sandbox", "host-null"});
    CHECK_THAT(json.out, Catch::Contains("\"rule\":\"read ~/.ssh\",\"passed\":false"));
}

TEST_CASE("doctor --probe under landlock: every canary is blocked and every control works") {
    OmsEnv env;
    private_system_temp(env);
    ProcessResult probe = env.oms({"doctor", "--probe", "--sandbox", "landlock"});
    INFO(probe.out << probe.err);
    CHECK(probe.exit_code == 0);
    CHECK_THAT(probe.out, Catch::Contains("confinement: host (landlock ABI"));
    for (const char* rule : {"read ~/.ssh", "read *-keypair.json in the worktree", "write outside the worktree",
                             "write the task's .git", "connect to a refused loopback port",
                             "scrubbed variable (AWS_SECRET_ACCESS_KEY)"})
        CHECK_THAT(probe.out, Catch::Contains(std::string("pass  ") + rule + ": blocked; control worked"));
    CHECK_THAT(probe.out, !Catch::Contains("FAIL"));
}

TEST_CASE("plugins --keys lists the core's keys and each plugin's declared keys") {
    OmsEnv env;
    ProcessResult keys = env.oms({"plugins", "--keys"});
    INFO(keys.err);
    CHECK(keys.exit_code == 0);
    CHECK_THAT(keys.out, Catch::Contains("[sandbox]"));
    CHECK_THAT(keys.out, Catch::Contains("pinned           array of strings   narrows"));
    CHECK_THAT(keys.out, Catch::Contains("[plugin.network]"));
    CHECK_THAT(keys.out, Catch::Contains("surfnet_port     integer"));
}

TEST_CASE("task end with no Docker daemon has nothing to end and says so, exit 0") {
    OmsEnv env;
    env.env["DOCKER_HOST"] = "unix://" + std::string(env.root / "no-daemon.sock");
    ProcessResult end = env.oms({"task", "end", "--worktree", env.worktree});
    INFO(end.out << end.err);
    CHECK(end.exit_code == 0);
    CHECK_THAT(end.out, Catch::Contains("docker: no Docker daemon answers ("));
    CHECK(end.err.empty());
    // The control: what is wrong still fails (a config error, exit 78).
    env.user_config("[plugin.docker]\nwarm = \"yes\"\n");
    ProcessResult bad = env.oms({"task", "end", "--worktree", env.worktree});
    CHECK(bad.exit_code == 78);
}
