// The worktree default through the real binary with host-null (issue 10,
// item 5): from a repository's subfolder the worktree is the repository's
// top, the command starts in the subfolder (host-null has no confinement, so
// what is checked is where the command starts, what oms says, and the
// worktree `oms policy` reports); from the top or with --worktree nothing
// changes. From a subfolder the top's .oms/config.toml applies.
#include "oms_env.hpp"

#include <catch2/catch.hpp>

using namespace oms::test;

namespace {

struct Repository {
    std::string top, sub;
};

Repository plant_repository(OmsEnv& env) {
    Repository repo{env.worktree, env.worktree + "/app/src"};
    make_dirs(repo.sub);
    write_file(repo.top + "/README.md", "TOP-README\n");
    std::vector<std::string> environment;
    for (auto& [name, value] : env.env) environment.push_back(name + "=" + value);
    ProcessResult init = run_process({"/usr/bin/git", "init", "-q", repo.top}, {environment, std::nullopt, repo.top, 30});
    REQUIRE(init.exit_code == 0);
    return repo;
}

ProcessResult run_in(OmsEnv& env, const std::string& cwd, std::vector<std::string> args) {
    return env.oms(args, {{}, std::nullopt, cwd, 60});
}

}  // namespace

TEST_CASE("host-null from a subfolder: the command starts there, the worktree is the repository's top") {
    OmsEnv env;
    const Repository repo = plant_repository(env);
    ProcessResult run = run_in(env, repo.sub, {"run", "--sandbox", "host-null", "--yes", "--", "/bin/sh", "-c",
                                               "pwd; cat ../../README.md; git rev-parse --show-toplevel"});
    INFO(run.out << run.err);
    CHECK(run.exit_code == 0);
    CHECK(run.out == repo.sub + "\nTOP-README\n" + repo.top + "\n");
    CHECK_THAT(run.err, Catch::Contains("oms: worktree: " + repo.top + " (the repository holding the current folder; "
                                        "the command starts in " + repo.sub + ")"));

    // --quiet: the same run from the same folder, with no oms line at all.
    ProcessResult quiet = run_in(env, repo.sub, {"run", "--sandbox", "host-null", "--yes", "--quiet", "--", "pwd"});
    INFO(quiet.out << quiet.err);
    CHECK(quiet.out == repo.sub + "\n");
    CHECK(quiet.err.empty());

    ProcessResult policy = run_in(env, repo.sub, {"policy", "--sandbox", "host-null"});
    INFO(policy.out << policy.err);
    CHECK_THAT(policy.out, Catch::Contains("worktree: " + repo.top + "\nworking folder: " + repo.sub + "\n"));
    CHECK_THAT(policy.out, Catch::Contains("  working folder: " + repo.sub));  // host-null's own rendering

    ProcessResult top = run_in(env, repo.top, {"run", "--sandbox", "host-null", "--yes", "--", "pwd"});
    INFO(top.out << top.err);
    CHECK(top.out == repo.top + "\n");
    CHECK_THAT(top.err, !Catch::Contains("oms: worktree:"));

    ProcessResult given = run_in(env, repo.sub, {"run", "--sandbox", "host-null", "--yes", "--worktree", repo.sub, "--", "pwd"});
    INFO(given.out << given.err);
    CHECK(given.out == repo.sub + "\n");
    CHECK_THAT(given.err, !Catch::Contains("oms: worktree:"));
}

TEST_CASE("from a subfolder, the repository's own config applies (the worktree is its top)") {
    OmsEnv env;
    const Repository repo = plant_repository(env);
    write_file(repo.top + "/app/verify.sh", "exit 0\n");
    env.worktree_config("[sandbox]\npinned = [\"app/verify.sh\"]\n");  // relative to the worktree
    ProcessResult policy = run_in(env, repo.sub, {"policy", "--sandbox", "host-null"});
    INFO(policy.out << policy.err);
    CHECK(policy.exit_code == 0);
    CHECK_THAT(policy.out, Catch::Contains(repo.top + "/app/verify.sh"));
    // Control: outside any repository the folder itself is the worktree.
    const std::string plain = env.home + "/plain";
    make_dirs(plain);
    ProcessResult outside = run_in(env, plain, {"run", "--sandbox", "host-null", "--yes", "--", "pwd"});
    INFO(outside.out << outside.err);
    CHECK(outside.out == plain + "\n");
    CHECK_THAT(outside.err, !Catch::Contains("oms: worktree:"));
    ProcessResult plain_policy = run_in(env, plain, {"policy", "--sandbox", "host-null"});
    CHECK_THAT(plain_policy.out, !Catch::Contains("verify.sh"));
}
