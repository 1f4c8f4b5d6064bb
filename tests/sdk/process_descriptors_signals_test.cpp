// oms/process.hpp for launchers: named descriptors survive into the child at
// the number asked for while every other one is closed, and a signal can go
// to the child's process group (through a wrapper that would die on it) or
// to a pid the backend names.
#include "temp_dir.hpp"

#include <oms/process.hpp>

#include <catch2/catch.hpp>

#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <thread>

using namespace oms::test;

namespace {

oms::sdk::ExecSpec shell(const std::string& script, const std::string& cwd) {
    oms::sdk::ExecSpec spec;
    spec.argv = {"/bin/sh", "-c", script};
    spec.env = {"PATH=/usr/bin:/bin"};
    spec.cwd = cwd;
    return spec;
}

// Waits until `path` exists (the child is past its setup), at most 10 s.
bool wait_for(const std::string& path) {
    for (int i = 0; i < 1000 && !exists(path); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    return exists(path);
}

}  // namespace

TEST_CASE("kept descriptors reach the child at their target; the others stay closed") {
    TempDir dir;
    int data[2];
    REQUIRE(pipe(data) == 0);
    REQUIRE(write(data[1], "seccomp-bytes", 13) == 13);
    close(data[1]);
    int unnamed = open("/dev/null", O_RDONLY);  // not close-on-exec: only the SDK closes it
    REQUIRE(unnamed > 2);

    auto spec = shell("cat /proc/self/fd/10 > from10; [ -e /proc/self/fd/" + std::to_string(unnamed) +
                          " ] && echo leaked > leak; [ -e /proc/self/fd/" + std::to_string(data[0]) +
                          " ] && echo source-open > source; exit 0",
                      dir.path());
    spec.keep_descriptors = {{data[0], 10}};
    CHECK(oms::sdk::ChildProcess::start(spec)->wait() == 0);
    CHECK(read_file(dir / "from10") == "seccomp-bytes");  // positive control: the named one is there
    CHECK_FALSE(exists(dir / "leak"));
    CHECK_FALSE(exists(dir / "source"));  // moved, not duplicated

    // Two descriptors swapping numbers: each arrives at the other's number.
    int a[2], b[2];
    REQUIRE(pipe(a) == 0);
    REQUIRE(pipe(b) == 0);
    REQUIRE(write(a[1], "A", 1) == 1);
    REQUIRE(write(b[1], "B", 1) == 1);
    close(a[1]);
    close(b[1]);
    spec = shell("cat /proc/self/fd/" + std::to_string(b[0]) + " > at-b; cat /proc/self/fd/" + std::to_string(a[0]) +
                     " > at-a",
                 dir.path());
    spec.keep_descriptors = {{a[0], b[0]}, {b[0], a[0]}};
    CHECK(oms::sdk::ChildProcess::start(spec)->wait() == 0);
    CHECK(read_file(dir / "at-b") == "A");
    CHECK(read_file(dir / "at-a") == "B");

    spec.keep_descriptors = {{data[0], 1}};  // stdio has its own field
    CHECK_THROWS_WITH(oms::sdk::ChildProcess::start(spec), Catch::Contains("cannot keep a descriptor"));
    for (int fd : {data[0], unnamed, a[0], b[0]}) close(fd);
}

TEST_CASE("signal() reaches the command through a wrapper when the child leads its own group") {
    TempDir dir;
    // The wrapper dies at once on SIGTERM (default disposition); the real
    // command traps it, records it and exits 3. Only a group signal lets the
    // trap run; a signal to the direct child alone kills just the wrapper.
    const std::string command = "trap 'echo trapped > trapped; exit 3' TERM; echo up > ready; while :; do sleep 0.05; done";
    auto spec = shell("sh -c \"" + command + "\" & wait $!; echo wrapper-saw-$? > wrapper", dir.path());
    spec.own_process_group = true;
    spec.signal_target = oms::sdk::SignalTarget::process_group;
    auto child = oms::sdk::ChildProcess::start(spec);
    CHECK(getpgid(child->pid()) == child->pid());
    REQUIRE(wait_for(dir / "ready"));
    child->signal(SIGTERM);
    CHECK(child->wait() == 128 + SIGTERM);  // the wrapper, killed by the same signal
    REQUIRE(wait_for(dir / "trapped"));
    CHECK(read_file(dir / "trapped") == "trapped\n");

    // Control: the direct child only. The wrapper dies, the command never
    // sees the signal (no trap file), and is killed by the test afterwards.
    TempDir other;
    spec = shell("sh -c \"" + command + "\" & echo $! > inner; wait $!", other.path());
    spec.own_process_group = true;  // group exists, but signals go to the child alone
    child = oms::sdk::ChildProcess::start(spec);
    REQUIRE(wait_for(other / "ready"));
    child->signal(SIGTERM);
    CHECK(child->wait() == 128 + SIGTERM);
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    CHECK_FALSE(exists(other / "trapped"));
    kill(-child->pid(), SIGKILL);  // the orphaned command, still in the group
}

TEST_CASE("signal_pid sends to the pid the backend names") {
    TempDir dir;
    auto spec = shell("sh -c \"trap 'echo trapped > trapped; exit 4' TERM; echo up > ready; while :; do sleep 0.05; done\" & "
                      "echo $! > inner; wait $!; echo $? > inner-status",
                      dir.path());
    auto child = oms::sdk::ChildProcess::start(spec);
    REQUIRE(wait_for(dir / "ready"));
    REQUIRE(wait_for(dir / "inner"));
    child->signal_pid(static_cast<pid_t>(std::stol(read_file(dir / "inner"))));
    child->signal(SIGTERM);
    CHECK(child->wait() == 0);  // the wrapper survived and ended on its own
    CHECK(read_file(dir / "trapped") == "trapped\n");
    CHECK(read_file(dir / "inner-status") == "4\n");
}
