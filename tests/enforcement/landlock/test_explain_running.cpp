// `oms explain --running`: the runs going on now and what each was refused
// so far, read from their run folders while the command runs; an abandoned
// folder (no oms holds its lock) is not a run; after the run, none is left.
#include "landlock_sandbox.hpp"
#include "test_support.hpp"

#include <chrono>
#include <filesystem>
#include <thread>

#include <unistd.h>

using namespace oms::test;

namespace {

RunOutcome explain_running(World& w, bool json = false) {
    std::vector<std::string> args{oms_binary(), "explain", "--running"};
    if (json) args.push_back("--json");
    auto result = run_process(args, {oms_world_env(w), std::nullopt, w.work, 60});
    return RunOutcome{OMS_OK, "", result.exit_code, result.out, result.err};
}

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("oms explain --running shows a run going on and what it was refused so far", "[landlock][refusals][running]") {
    require_landlock();
    REQUIRE(oms_run_available());
    World w;
    // An abandoned run folder: same name shape, refusals, but no oms holds its
    // lock; in the user's one folder of run folders, which other tests' runs share.
    const std::string dead = "/tmp/oms-runs-" + std::to_string(geteuid()) + "/oms-run-dead" + std::to_string(getpid());
    write_file(dead + "/refusals", "refused\tresolver\tdead.test\t0\tabandoned\n");
    write_file(dead + "/.owner", "");

    auto idle = explain_running(w);
    INFO(idle.out << idle.err);
    REQUIRE(idle.exit_code == 0);
    CHECK_FALSE(has(idle.out, "dead.test"));

    RunOutcome r;
    std::thread run([&] {
        r = run_in_oms(w,
                       "getent hosts running.test; i=0; while [ ! -e done ] && [ $i -lt 300 ]; do sleep 0.1; "
                       "i=$((i+1)); done; echo waited=$i");
    });
    RunOutcome live;
    for (int i = 0; i < 200 && !has(live.out, "refused so far: 1\n"); ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        live = explain_running(w);
    }
    const RunOutcome json = explain_running(w, true);
    write_file(w.work + "/done", "");
    run.join();
    INFO(live.out << live.err << json.out << r.out << r.err);
    CHECK(live.exit_code == 0);
    CHECK(has(live.out, "running: sh -c getent hosts running.test"));
    CHECK(has(live.out, "  worktree: " + w.work + "\n"));
    CHECK(has(live.out, "  backend: landlock\n"));
    CHECK(has(live.out, "refused so far: 1\n"));
    CHECK(has(live.out, "  running.test  answered \"no such host\""));
    CHECK_FALSE(has(live.out, "dead.test"));  // not a run: nobody holds its lock
    CHECK(has(json.out, "\"command\":[\"sh\",\"-c\",\"getent hosts running.test"));
    CHECK(has(json.out, "\"host\":\"running.test\",\"port\":0"));
    CHECK(lines_starting(r.out, "waited=300").empty());  // it was still running when it was listed

    auto after = explain_running(w);
    INFO(after.out);
    CHECK_FALSE(has(after.out, "running.test"));  // ended: no longer a run
    std::filesystem::remove_all(dead);
}
