// Docker escape class 6: a worktree that is HOME let a command rewrite
// ~/.config/oms/config.toml (`docker = "$PWD/evil.sh"`), which the next
// `oms run` executed on the host. The core now refuses such a worktree for
// every backend: through the real `oms run --sandbox docker`, one-shot and
// warm, nothing runs and the config is byte for byte the same. Positive
// control: the same command in a normal worktree runs in the container.
#include "docker_fixture.hpp"
#include "oms_user.hpp"

#include "process.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <map>

using namespace oms::test;
using namespace oms::test::docker;

namespace {

const std::string kEvil =
    "echo 'docker = \"'\"$PWD\"'/evil.sh\"' >> .config/oms/config.toml; echo ran > ran.txt";

}  // namespace

TEST_CASE("docker: a worktree that is HOME is refused before anything runs", "[docker]") {
    require_daemon();
    for (bool warm : {false, true}) {
        DYNAMIC_SECTION((warm ? "warm" : "one-shot")) {
            OmsUser h(warm);
            ProcessResult run = h.oms({"run", "--sandbox", "docker", "--worktree", h.home, "--", "sh", "-c", kEvil});
            INFO(run.out << run.err);
            CHECK(run.exit_code == 77);
            CHECK_THAT(run.err, Catch::Contains("refusing the worktree '" + h.home + "'"));
            CHECK_THAT(run.err, Catch::Contains("it is your HOME folder"));
            CHECK(read_file(h.config_file) == h.config);  // unchanged, byte for byte
            CHECK_FALSE(exists(h.home + "/ran.txt"));
            ProcessResult end = h.oms({"task", "end", "--worktree", h.home});
            CHECK(end.exit_code == 77);
        }
    }
}

TEST_CASE("docker: positive control, the same command runs in a normal worktree", "[docker]") {
    require_daemon();
    OmsUser h(false);
    ProcessResult run = h.oms({"run", "--sandbox", "docker", "--worktree", h.worktree, "--", "sh", "-c",
                               "echo ran > ran.txt; cat README"});
    INFO(run.out << run.err);
    CHECK(run.exit_code == 0);
    CHECK_THAT(run.out, Catch::Contains("readme"));
    CHECK(exists(h.worktree + "/ran.txt"));
    CHECK(read_file(h.config_file) == h.config);
}

// Issue 10 item 5 through the real `oms run --sandbox docker`: from a
// repository's subfolder without --worktree, the worktree is the repository
// (../README reads, a write to the top lands on the host) and the command
// starts in the subfolder; `oms task end` from there ends the top's task.
TEST_CASE("docker: from a repository's subfolder the command starts there, the worktree is the top", "[docker]") {
    require_daemon();
    for (bool warm : {false, true}) {
        DYNAMIC_SECTION((warm ? "warm" : "one-shot")) {
            OmsUser h(warm);
            write_file(h.worktree + "/.git/config", "[core]\n");
            const std::string sub = h.worktree + "/app";
            make_dirs(sub);
            if (geteuid() == 0 && chown(sub.c_str(), container_uid(), container_uid()) != 0) FAIL("chown failed");
            ProcessResult run = h.oms_in(sub, {"run", "--", "sh", "-c", "pwd; cat ../README; echo ran > ../from-sub.txt"});
            INFO(run.out << run.err);
            CHECK(run.exit_code == 0);
            CHECK(run.out == sub + "\nreadme\n");
            CHECK(read_file(h.worktree + "/from-sub.txt") == "ran\n");
            CHECK_THAT(run.err, Catch::Contains("oms: worktree: " + h.worktree + " ("));
            ProcessResult end = h.oms_in(sub, {"task", "end"});
            INFO(end.out << end.err);
            CHECK(end.exit_code == 0);
            Cli left = docker_cli({"ps", "-a", "-q", "--filter", "label=oms.worktree=" + h.worktree});
            CHECK(left.out.empty());
        }
    }
}
