// Every run's private folder (its HOME and TMPDIR) lies in one folder of
// the user's, oms-runs-UID in TMPDIR. A command whose sandbox shows that
// folder (the user made /tmp a write root) must still reach no other run's
// folder: not one that was there at its start, not one that starts later.
// Otherwise it could plant a git alias or an npm script in the private HOME
// of a concurrent run, which may have rights this one lacks.
#include "file_wait.hpp"
#include "isolation_support.hpp"

#include <unistd.h>

#include <future>

using namespace oms::test;

TEST_CASE("with /tmp writable, a command reaches no other run's private folder, not even a later one",
          "[landlock][isolation][run-folders]") {
    require_landlock();
    // Also when the attacker's TMPDIR is another folder: the run folders'
    // place does not follow it (each run would hide only its own).
    for (const bool own_tmpdir : {false, true}) {
        INFO((own_tmpdir ? "the attacker has a TMPDIR of its own" : "one TMPDIR"));
        World w;
        const std::string elsewhere = w.root / "elsewhere";
        make_dirs(elsewhere);
        const std::vector<std::string> attacker_env{own_tmpdir ? "TMPDIR=" + elsewhere : "OMS_TEST_NOTHING=1"};
        const std::string mark = unique_mark(w.work + "/mark");
        const std::string host_file = "/tmp/" + unique_mark("oms-test-run-folders");
        // The attacker starts first, so the victim's folder is made after its
        // sandbox was set up; it then tries the victim's HOME by its real path.
        auto attacker = std::async(std::launch::async, [&] {
            return run_in_oms_with_rw(
                w, "/tmp",
                "echo started > '" + mark + ".a'; " + shell_wait_for(mark + ".b-home") + "victim=$(cat '" + mark +
                    ".b-home'); "
                    "ls \"$(dirname \"$victim\")\" >/dev/null 2>&1 && echo SAW-FOLDER || echo NO-FOLDER; "
                    "echo \"RUNS-SEEN $(ls \"$(dirname \"$(dirname \"$victim\")\")\" | grep -c oms-run-)\"; "
                    "printf '[alias]\\n\\tst = !touch planted-by-alias\\n' >> \"$victim/.gitconfig\" "
                    "2>/dev/null && echo WROTE || echo NOT-WRITTEN; "
                    "echo x > \"$victim/planted\" 2>/dev/null && echo PLANTED || echo NOT-PLANTED; "
                    "echo mine > \"$HOME/own\" && cat \"$HOME/own\"; "
                    "echo host > '" +
                    host_file +
                    "' && echo HOST-TMP-OK; "
                    "echo done > '" +
                    mark + ".a-done'",
                attacker_env);
        });
        if (!file_appears(mark + ".a", std::chrono::seconds(30))) {
            // Say why: an attacker that ended (refused) has its output.
            if (attacker.wait_for(std::chrono::seconds(0)) == std::future_status::ready) {
                const RunOutcome a = attacker.get();
                INFO("attacker ended before its command started: " << a.exit_code << "\n" << a.out << a.err);
                FAIL("the attacker's command never started");
            }
            FAIL("the attacker's command did not start within 30 s");
        }
        const RunOutcome victim =
            run_in_oms_with_rw(w, "/tmp",
                               "echo \"$HOME\" > '" + mark + ".b-home'; " + shell_wait_for(mark + ".a-done") +
                                   "ls -A \"$HOME\" | grep -c planted; "
                                   "grep -c planted-by-alias \"$HOME/.gitconfig\"; echo VICTIM-END");
        const RunOutcome a = attacker.get();
        INFO("attacker: " << a.out << a.err << "\nvictim: " << victim.out << victim.err);
        REQUIRE(a.exit_code == 0);
        REQUIRE(victim.exit_code == 0);
        CHECK_THAT(a.out, Catch::Contains("NO-FOLDER"));
        CHECK_THAT(a.out, Catch::Contains("RUNS-SEEN 1\n"));  // its own folder, no other
        CHECK_THAT(a.out, Catch::Contains("NOT-WRITTEN"));
        CHECK_THAT(a.out, Catch::Contains("NOT-PLANTED"));
        // The victim's own view: nothing planted, its git config untouched.
        CHECK_THAT(victim.out, Catch::StartsWith("0\n0\nVICTIM-END"));
        // Positive controls: the attacker's own HOME works, and /tmp is the host's.
        CHECK_THAT(a.out, Catch::Contains("mine\n"));
        CHECK_THAT(a.out, Catch::Contains("HOST-TMP-OK"));
        CHECK(exists(host_file));
        unlink(host_file.c_str());
    }
}

TEST_CASE("the run folders' folder as a --rw folder is refused, naming it", "[landlock][run-folders]") {
    require_landlock();
    World w;
    REQUIRE(run_in_oms(w, "true").exit_code == 0);  // the user's run folders' folder exists
    const std::string base = "/tmp/oms-runs-" + std::to_string(geteuid());
    const RunOutcome r = run_in_oms_with_rw(w, base, "echo RAN");
    INFO(r.out << r.err);
    CHECK(r.exit_code != 0);
    CHECK(r.out.find("RAN") == std::string::npos);
    CHECK_THAT(r.err, Catch::Contains(base + " is " + base + ", where oms keeps the runs' private folders"));
    CHECK(run_in_oms_with_rw(w, w.outside, "echo RAN").out == "RAN\n");  // positive control: another --rw folder
}

TEST_CASE("the run's TMPDIR is an empty 0700 folder of the private /tmp: what a command writes there never reaches "
          "the host's disk",
          "[landlock][isolation][run-folders]") {
    require_landlock();
    World w;
    const std::string mark = unique_mark(w.work + "/tmpdir");
    // The command names its TMPDIR and writes there, then waits while the
    // test looks at the host's folder of that name.
    auto run = std::async(std::launch::async, [&] {
        return run_in_oms(w, "stat -f -c 'type %T' \"$TMPDIR\"; stat -c 'mode %a' \"$TMPDIR\"; "
                             "echo \"entries $(ls -A \"$TMPDIR\" | wc -l)\"; "
                             "echo x > \"$TMPDIR/made\" && cat \"$TMPDIR/made\" && echo TMPDIR-WRITABLE; "
                             "echo \"$TMPDIR\" > '" + mark + ".path'; " + shell_wait_for(mark + ".looked") +
                                 "cat \"$TMPDIR/made\" && echo STILL-THERE");
    });
    REQUIRE(file_appears(mark + ".path", std::chrono::seconds(30)));
    std::string host_temp = read_file(mark + ".path");
    host_temp.pop_back();  // the newline
    const bool host_folder_there = exists(host_temp);
    const bool host_file_there = exists(host_temp + "/made");
    write_file(mark + ".looked", "");
    const RunOutcome r = run.get();
    INFO(r.out << r.err);
    REQUIRE(r.exit_code == 0);
    CHECK_THAT(r.out, Catch::StartsWith("type tmpfs\nmode 700\nentries 0\nx\nTMPDIR-WRITABLE\nx\nSTILL-THERE\n"));
    CHECK(host_folder_there);  // positive: oms made the host's folder for the run (rung 3 uses it)
    CHECK_FALSE(host_file_there);
}
