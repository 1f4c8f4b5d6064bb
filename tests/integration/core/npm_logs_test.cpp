// npm's debug log outlives the run's private HOME: after a failed run oms
// copies the logs the run's npm wrote (~/.npm/_logs/*.log) into its state
// folder and names them on one line; a run that succeeds keeps nothing, and
// nothing the command plants there (a link to a file, a link as the folder,
// a name that is not a plain file name) is followed or copied.
#include "oms_env.hpp"

#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>

using namespace oms::test;

namespace {

const std::string kLogName = "2026-12-06T10_40_01_123Z-debug-0.log";

// A shell line writing what npm writes, then the given end.
std::string npm_like(const std::string& then) {
    return "mkdir -p \"$HOME/.npm/_logs\" && echo 'verbose cli npm install' > \"$HOME/.npm/_logs/" + kLogName +
           "\" && " + then;
}

ProcessResult run_sh(OmsEnv& env, const std::string& script, bool quiet = false) {
    std::vector<std::string> args{"run", "--sandbox", "host-null", "--yes"};
    if (quiet) args.push_back("--quiet");
    for (const char* word : {"--", "/bin/sh", "-c"}) args.push_back(word);
    args.push_back(script);
    return env.oms(args);
}

}  // namespace

TEST_CASE("after a failed run, npm's log is kept in the state folder and named") {
    OmsEnv env;
    const std::string kept = env.state_home + "/oms/npm-logs/" + kLogName;
    ProcessResult run = run_sh(env, npm_like("exit 1"));
    INFO(run.err);
    CHECK(run.exit_code == 1);
    CHECK_THAT(run.err, Catch::Contains("npm's log of this run is kept at " + kept));
    REQUIRE(exists(kept));
    CHECK(read_file(kept) == "verbose cli npm install\n");
    // Quiet: kept, not said.
    std::filesystem::remove(kept);
    ProcessResult quiet = run_sh(env, npm_like("exit 2"), true);
    CHECK(quiet.exit_code == 2);
    CHECK(quiet.err.find("npm's log") == std::string::npos);
    CHECK(exists(kept));
}

TEST_CASE("a run that succeeds keeps no npm log and says nothing of it") {
    OmsEnv env;
    ProcessResult run = run_sh(env, npm_like("true"));
    CHECK(run.exit_code == 0);
    CHECK(run.err.find("npm's log") == std::string::npos);
    CHECK_FALSE(exists(env.state_home + "/oms/npm-logs/" + kLogName));
}

TEST_CASE("what a command plants as npm's logs is never followed: links and odd names are not copied") {
    OmsEnv env;
    const std::string secret = env.root / "secret.txt";
    write_file(secret, "not a log\n");
    const std::string other = env.root / "other-logs";
    make_dirs(other);
    write_file(other + "/" + kLogName, "planted\n");
    // A log that is a link to a file outside the run, and a name with a
    // newline: neither copied; the plain log next to them is (control).
    ProcessResult links = run_sh(env, "mkdir -p \"$HOME/.npm/_logs\" && ln -s " + secret +
                                          " \"$HOME/.npm/_logs/a-debug-0.log\" && printf x > \"$HOME/.npm/_logs/b\n.log\" "
                                          "&& echo real > \"$HOME/.npm/_logs/c-debug-0.log\" && exit 1");
    INFO(links.err);
    CHECK(links.exit_code == 1);
    const std::string kept = env.state_home + "/oms/npm-logs";
    CHECK_FALSE(exists(kept + "/a-debug-0.log"));
    CHECK_FALSE(exists(kept + "/b\n.log"));
    CHECK(read_file(kept + "/c-debug-0.log") == "real\n");
    // The _logs folder itself a link to a folder outside: nothing copied.
    ProcessResult folder = run_sh(env, "mkdir -p \"$HOME/.npm\" && ln -s " + other + " \"$HOME/.npm/_logs\" && exit 1");
    CHECK(folder.exit_code == 1);
    CHECK(folder.err.find("npm's log") == std::string::npos);
    CHECK_FALSE(exists(kept + "/" + kLogName));
}

TEST_CASE("the folder keeps the newest logs only") {
    OmsEnv env;
    std::string script = "mkdir -p \"$HOME/.npm/_logs\" && cd \"$HOME/.npm/_logs\"";
    for (int i = 0; i < 5; ++i) script += " && echo " + std::to_string(i) + " > 2026-01-0" + std::to_string(i + 1) + "-debug-0.log";
    script += " && exit 1";
    for (int round = 0; round < 5; ++round) {
        std::string this_round = script;
        // Round r names its logs 2022+r-01-0N: each round's are newer.
        for (size_t at = this_round.find("2026-"); at != std::string::npos; at = this_round.find("2026-", at + 1))
            this_round[at + 3] = static_cast<char>('2' + round);
        CHECK(run_sh(env, this_round).exit_code == 1);
    }
    size_t count = 0;
    for (const auto& entry : std::filesystem::directory_iterator(env.state_home + "/oms/npm-logs")) {
        ++count;
        CHECK(entry.path().filename().string().rfind("2022-", 0) != 0);  // the first round's five went first
    }
    CHECK(count == 20);
}
