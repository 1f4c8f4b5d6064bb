// The core refuses a worktree a command could use to change HOME or oms's own
// files (escape classes: landlock 8, docker 6): HOME, `/`, a folder above
// HOME, a link to one of them, a folder holding oms's config or state, a
// shared temp folder (/tmp itself, or a folder holding one). For
// `oms run`, `oms policy` and `oms task end`, whatever the backend; nothing
// runs and the user's config is unchanged. A normal worktree still runs.
#include "oms_env.hpp"

#include <pwd.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>

using namespace oms::test;

namespace {

constexpr int kExitRefused = 77;

struct Case {
    std::string name;
    std::string worktree;  // as passed to --worktree
    std::string why;       // part of the refusal message
};

std::vector<Case> refused_cases(const OmsEnv& env) {
    const std::string link = env.root / "home-link";
    std::filesystem::create_directory_symlink(env.home, link);
    make_dirs(env.config_home + "/oms/sub");
    return {
        {"HOME", env.home, "it is your HOME folder (" + env.home + ")"},
        {"HOME with a trailing slash", env.home + "/", "it is your HOME folder"},
        {"/", "/", "it is the root folder '/'"},
        {"a folder above HOME", env.root.path(), "it holds your HOME folder (" + env.home + ")"},
        {"a link to HOME", link, "(which resolves to '" + env.home + "'): it is your HOME folder"},
        {"the folder holding oms's config", env.config_home,
         "it holds oms's config folder (" + env.config_home + "/oms)"},
        {"oms's config folder itself", env.config_home + "/oms", "it is oms's config folder"},
        {"a folder inside oms's config folder", env.config_home + "/oms/sub", "it lies inside oms's config folder"},
        {"the folder holding oms's state", env.state_home, "it holds oms's state folder (" + env.state_home + "/oms)"},
        {"the shared /tmp", "/tmp", "it is the shared temp folder /tmp"},
        {"the shared /tmp through a trailing slash", "/tmp/", "it is the shared temp folder /tmp"},
        {"/var, which holds the shared /var/tmp", "/var", "it holds the shared temp folder /var/tmp"},
    };
}

void check_refused(const ProcessResult& result, const Case& c) {
    INFO(c.name << ": " << result.out << result.err);
    CHECK(result.exit_code == kExitRefused);
    CHECK_THAT(result.err, Catch::Contains("refusing the worktree"));
    CHECK_THAT(result.err, Catch::Contains(c.why));
    CHECK_THAT(result.err, Catch::Contains("Pass the project's own folder instead"));
}

}  // namespace

TEST_CASE("oms run refuses a worktree that is HOME, /, above HOME, a link to HOME or holds oms's files") {
    OmsEnv env;
    const std::string config = "[sandbox]\nbackend = \"host-null\"\n";
    env.user_config(config);
    const auto cases = refused_cases(env);
    for (size_t i = 0; i < cases.size(); ++i) {
        const Case& c = cases[i];
        const std::string marker = env.home + "/ran-" + std::to_string(i);
        ProcessResult run = env.oms({"run", "--sandbox", "host-null", "--yes", "--worktree", c.worktree, "--", "/bin/sh",
                                     "-c", "touch " + marker + "; echo rewritten > " + env.config_home + "/oms/config.toml"});
        check_refused(run, c);
        CHECK_FALSE(exists(marker));                                        // nothing ran
        CHECK(read_file(env.config_home + "/oms/config.toml") == config);  // the config is unchanged
    }
    // Positive control: the same command in a normal worktree runs.
    const std::string marker = env.worktree + "/ran";
    ProcessResult run = env.oms({"run", "--sandbox", "host-null", "--yes", "--worktree", env.worktree, "--", "/bin/sh",
                                 "-c", "touch " + marker});
    INFO(run.err);
    CHECK(run.exit_code == 0);
    CHECK(exists(marker));
}

TEST_CASE("the current folder as the default worktree is checked the same way") {
    OmsEnv env;
    ProcessOptions in_home;
    in_home.cwd = env.home;
    ProcessResult run = env.oms({"run", "--sandbox", "host-null", "--yes", "--", "/bin/true"}, in_home);
    check_refused(run, Case{"cwd = HOME", env.home, "it is your HOME folder"});
    ProcessOptions in_worktree;
    in_worktree.cwd = env.worktree;
    ProcessResult control = env.oms({"run", "--sandbox", "host-null", "--yes", "--", "/bin/true"}, in_worktree);
    INFO(control.err);
    CHECK(control.exit_code == 0);
}

TEST_CASE("oms policy and oms task end refuse the same worktrees") {
    OmsEnv env;
    for (const Case& c : refused_cases(env)) {
        check_refused(env.oms({"policy", "--sandbox", "host-null", "--worktree", c.worktree}), c);
        check_refused(env.oms({"task", "end", "--worktree", c.worktree}), c);
    }
    // Positive controls.
    ProcessResult policy = env.oms({"policy", "--sandbox", "host-null", "--worktree", env.worktree});
    INFO(policy.err);
    CHECK(policy.exit_code == 0);
    CHECK_THAT(policy.out, Catch::Contains("worktree: " + env.worktree));
    // The worktree is taken: whatever the backends then say (docker's part
    // needs a daemon, which this core test does not start), it is no refusal.
    ProcessResult task = env.oms({"task", "end", "--worktree", env.worktree});
    INFO(task.err);
    CHECK(task.exit_code != kExitRefused);
    CHECK_THAT(task.err, !Catch::Contains("refusing the worktree"));
}

TEST_CASE("a worktree above HOME as the password database names it is refused too") {
    // $HOME may point elsewhere (a sealed test HOME): the caller's real home
    // folder is still protected, since a command runs as that user.
    OmsEnv env;
    const passwd* entry = getpwuid(getuid());
    REQUIRE(entry != nullptr);
    const std::string real_home = std::filesystem::canonical(entry->pw_dir).string();
    const std::string why = real_home == "/" ? "it is the root folder '/'" : "it is your HOME folder (" + real_home + ")";
    ProcessResult run = env.oms({"run", "--sandbox", "host-null", "--yes", "--worktree", real_home, "--", "/bin/true"});
    INFO(run.err);
    CHECK(run.exit_code == kExitRefused);
    CHECK_THAT(run.err, Catch::Contains(why));
}
