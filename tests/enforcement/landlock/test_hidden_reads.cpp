// A keypair the search hid fails to open like a denied read ("Permission
// denied", whoever asks: the mask is /dev/null on a nodev mount), so a
// program that reads it stops with an error instead of taking an empty file
// for the key; a file hidden by path alone (a credential a tool reads at
// every start) still reads as empty, so that tool starts. The key's bytes
// never appear; the file beside it (the control) reads as written.
#include "landlock_sandbox.hpp"
#include "test_support.hpp"

#include <catch2/catch.hpp>

#include <unistd.h>

#include <vector>

using namespace oms::test;

namespace {

const std::string kKey = "[17,42,99,KEYPAIR-BYTES]";

bool has_text(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("a hidden keypair fails to open with permission denied; the file beside it reads",
          "[landlock][keypair][hidden]") {
    require_landlock();
    FOR_EACH_DRIVER(driver) {
        World w;
        write_file(w.work + "/target/deploy/prog-keypair.json", kKey);
        write_file(w.work + "/target/deploy/prog.so", "PROGRAM-BINARY");
        auto r = run_confined(driver, w,
                              expand(w, "cd {work}/target/deploy; cat prog.so; echo; cat prog-keypair.json; "
                                        "echo status=$?; exit 0"));
        INFO(r.spawn_error << r.out << r.err);
        REQUIRE(r.exit_code == 0);
        CHECK(has_text(r.out, "PROGRAM-BINARY"));  // the control: the file beside it
        CHECK_FALSE(has_text(r.out, "KEYPAIR-BYTES"));
        CHECK(lines_starting(r.out, "status=1").size() == 1);  // cat failed, as on a denied read
        CHECK(has_text(r.out + r.err, "prog-keypair.json: Permission denied"));
        CHECK(read_file(w.work + "/target/deploy/prog-keypair.json") == kKey);  // untouched on the host
    }
}

// Through oms: the failure line names the run's hidden files first, and
// `oms explain --last` lists them.
// The control: once the key is gone, the next failure's line and record no
// longer name it (the world's other hidden files are still named).
TEST_CASE("a failure after a hidden keypair's read names the file; explain --last lists it",
          "[landlock][keypair][hidden]") {
    require_landlock();
    REQUIRE(oms_run_available());
    World w;
    const std::string key = w.work + "/target/deploy/prog-keypair.json";
    write_file(key, kKey);
    auto failed = run_in_oms(w, "cat " + key);
    INFO(failed.out << failed.err);
    CHECK(failed.exit_code == 1);
    CHECK_FALSE(has_text(failed.out, "KEYPAIR-BYTES"));
    const auto line = lines_starting(failed.err, "oms: exit 1 under the landlock sandbox; hidden from commands");
    REQUIRE(line.size() == 1);
    CHECK(has_text(line[0], "prog-keypair.json"));
    // Named before anything else the line says (dropped variables among them).
    CHECK(line[0].find("prog-keypair.json") < line[0].find("; if a file or port was refused"));
    auto last = run_process({oms_binary(), "explain", "--last"}, {oms_world_env(w), std::nullopt, w.work, 60});
    INFO(last.out << last.err);
    CHECK(lines_starting(last.out, "hidden from commands: ").size() == 1);
    CHECK(lines_starting(last.out, "  " + key).size() == 1);
    CHECK(lines_starting(last.out, "refused: 0").size() == 1);  // notices, not refusals

    REQUIRE(unlink(key.c_str()) == 0);
    auto after = run_in_oms(w, "cat " + key);
    INFO(after.err);
    CHECK(after.exit_code == 1);
    CHECK(has_text(after.err, "No such file"));
    for (const std::string& named : lines_starting(after.err, "oms: exit 1 under the landlock sandbox"))
        CHECK_FALSE(has_text(named, "prog-keypair.json"));
    auto last_after = run_process({oms_binary(), "explain", "--last"}, {oms_world_env(w), std::nullopt, w.work, 60});
    CHECK(lines_starting(last_after.out, "  " + key).empty());
}
