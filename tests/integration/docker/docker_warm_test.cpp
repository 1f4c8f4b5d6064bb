// The warm container's life: reused within a task, removed by end_task,
// replaced when the configuration changes, and swept when its task's
// worktree is gone. Also the daemon-facing errors: missing image, unpinned
// manifest, the socket as a mount, and doctor's report.
#include "docker_fixture.hpp"

#include <catch2/catch.hpp>

#include <filesystem>

#include <unistd.h>

using namespace oms::test;
using namespace oms::test::docker;

namespace {

// Containers with `label`, and when `mounted` is given, only those with a
// mount at that path (the daemon may be shared with other test runs).
std::vector<std::string> containers_of(const std::string& label, const std::string& mounted = "") {
    std::vector<std::string> args{"ps", "-a", "-q", "--no-trunc", "--filter", "label=" + label};
    if (!mounted.empty()) args.insert(args.end(), {"--filter", "volume=" + mounted});
    Cli ps = docker_cli(args);
    REQUIRE(ps.code == 0);
    std::vector<std::string> ids;
    std::string id;
    for (char c : ps.out) {
        if (c == '\n') {
            if (!id.empty()) ids.push_back(id);
            id.clear();
        } else {
            id += c;
        }
    }
    return ids;
}

std::vector<std::string> warm_of(const Task& task) { return containers_of("oms.worktree=" + task.worktree); }

}  // namespace

TEST_CASE("docker warm: one container per task, reused, removed at task end", "[docker]") {
    require_daemon();
    Task task(true);
    REQUIRE(warm_of(task).empty());
    REQUIRE(task.sh("echo kept > /tmp/marker").exit_code == 0);
    Outcome second = task.run({"cat", "/tmp/marker"});
    CHECK(second.out == "kept\n");  // the second command ran in the same container
    CHECK(warm_of(task).size() == 1);
    CHECK(task.end_task() == OMS_OK);
    CHECK(warm_of(task).empty());
    // Control: a one-shot task leaves no container behind after its command.
    Task one_shot(false);
    CHECK(one_shot.run({"true"}).exit_code == 0);
    CHECK(warm_of(one_shot).empty());
    CHECK(containers_of("oms.managed=one-shot", one_shot.worktree).empty());  // --rm removed it
    CHECK(one_shot.run({"cat", "/tmp/marker"}).exit_code != 0);  // nothing persists between commands
}

TEST_CASE("docker warm: a changed configuration replaces the task's container", "[docker]") {
    require_daemon();
    Task task(true);
    REQUIRE(task.run({"true"}).exit_code == 0);
    auto before = warm_of(task);
    REQUIRE(before.size() == 1);
    task.host.integers["pids_limit"] = 100;
    task.recreate_instance();
    REQUIRE(task.run({"true"}).exit_code == 0);
    auto after = warm_of(task);
    REQUIRE(after.size() == 1);
    CHECK(after[0] != before[0]);
    Cli inspect = docker_cli({"inspect", "--format", "{{.HostConfig.PidsLimit}}", after[0]});
    CHECK(inspect.out == "100\n");
}

TEST_CASE("docker warm: a container whose worktree is gone is removed at the next start", "[docker]") {
    require_daemon();
    auto crashed = std::make_unique<Task>(true);
    REQUIRE(crashed->run({"true"}).exit_code == 0);
    std::string orphan_label = "oms.worktree=" + crashed->worktree;
    REQUIRE(containers_of(orphan_label).size() == 1);
    // A crash: the task's worktree disappears without end_task.
    std::filesystem::remove_all(crashed->worktree);
    Task next(true);
    REQUIRE(next.run({"true"}).exit_code == 0);
    CHECK(containers_of(orphan_label).empty());
    CHECK(warm_of(next).size() == 1);  // control: the live task's container stays
    crashed.reset();
}

TEST_CASE("docker: a missing pinned image is a clear error, never a pull", "[docker]") {
    require_daemon();
    const bool warm = GENERATE(false, true);
    Task task(warm);
    write_file(task.manifest, "image = \"sha256:" + std::string(64, '0') + "\"\narchive = \"/srv/img.tar\"\n");
    Outcome o = task.run({"true"});
    CHECK(o.status == OMS_ERR_FAILED);
    CHECK(o.error.find("docker load -i /srv/img.tar") != std::string::npos);
    CHECK(o.error.find("never pulls") != std::string::npos);
    CHECK(warm_of(task).empty());
}

TEST_CASE("docker: an unpinned manifest and a socket mount are refused before anything runs", "[docker]") {
    require_daemon();
    Task task(false);
    write_file(task.manifest, "image = \"busybox:latest\"\n");
    Outcome tag = task.run({"touch", task.worktree + "/ran"});
    CHECK(tag.status == OMS_ERR_INVALID);
    CHECK(tag.error.find(task.manifest + ":1:") != std::string::npos);
    CHECK(!exists(task.worktree + "/ran"));

    write_file(task.manifest, "image = \"" + test_image() + "\"\nuser = \"" + std::to_string(container_uid()) + ":" + std::to_string(container_uid()) + "\"\n");
    task.read_write = {"/var/run"};
    Outcome sock = task.run({"touch", task.worktree + "/ran"});
    CHECK(sock.status == OMS_ERR_INVALID);
    CHECK(sock.error.find("Docker socket") != std::string::npos);
    CHECK(!exists(task.worktree + "/ran"));
    task.read_write.clear();
    CHECK(task.run({"touch", task.worktree + "/ran"}).exit_code == 0);  // control
    CHECK(exists(task.worktree + "/ran"));
}

TEST_CASE("docker: doctor reports the daemon, the image and the flags", "[docker]") {
    require_daemon();
    Task task(true);
    ReportCollector report;
    std::string error;
    REQUIRE(task.probe(report, error) == OMS_OK);
    std::string details;
    for (auto& line : report.of(OMS_REPORT_DETAIL)) details += line + "\n";
    CHECK(details.find("daemon: reachable at unix://") != std::string::npos);
    CHECK(details.find("image: " + test_image() + " (present)") != std::string::npos);
    CHECK(details.find("--cap-drop=ALL") != std::string::npos);
    CHECK(report.of(OMS_REPORT_SUMMARY).size() == 1);

    task.host.strings["socket"] = task.root / "no-daemon.sock";
    task.recreate_instance();
    ReportCollector down;
    CHECK(task.probe(down, error) == OMS_ERR_UNAVAILABLE);
    CHECK(error.find("no Docker daemon") != std::string::npos);
}

TEST_CASE("docker warm: a command that replaces the runner's socket does not get later commands", "[docker]") {
    require_daemon();
    Task task(true);
    REQUIRE(task.sh("echo kept > /tmp/marker").exit_code == 0);
    auto before = warm_of(task);
    REQUIRE(before.size() == 1);
    // An impostor: the same binary, listening on the socket after the real one's is removed.
    Outcome hijack = task.sh("rm /.oms/sock/runner.sock && (/.oms/runner /.oms/sock/runner.sock >/dev/null 2>&1 &) "
                             "&& sleep 1 && ls /.oms/sock");
    if (geteuid() == 0) {
        // Run as root, oms took the socket folder back once the runner listened:
        // the socket cannot even be removed, and the container keeps serving.
        CHECK(hijack.out.find("runner.sock") == std::string::npos);
        CHECK(task.run({"cat", "/tmp/marker"}).out == "kept\n");
        CHECK(warm_of(task) == before);
        return;
    }
    REQUIRE(hijack.out.find("runner.sock") != std::string::npos);
    Outcome next = task.run({"cat", "/tmp/marker"});
    CHECK(next.exit_code != 0);  // a fresh container: the impostor's container was removed
    auto after = warm_of(task);
    REQUIRE(after.size() == 1);
    CHECK(after[0] != before[0]);
    CHECK(task.run({"true"}).exit_code == 0);  // control: the fresh container serves commands
}

TEST_CASE("docker: the command starts in working_dir, one-shot and warm; outside the worktree nothing runs",
          "[docker]") {
    require_daemon();
    for (bool warm : {false, true}) {
        INFO((warm ? "warm" : "one-shot"));
        Task task(warm);
        task.working_dir = task.worktree + "/verify";
        Outcome in_sub = task.sh("pwd; cat ../README");
        INFO(in_sub.error << in_sub.out << in_sub.err);
        CHECK(in_sub.exit_code == 0);
        CHECK(in_sub.out == task.worktree + "/verify\nreadme\n");
        task.working_dir.clear();  // NULL: the worktree (control)
        Outcome at_top = task.sh("pwd");
        CHECK(at_top.out == task.worktree + "\n");
        task.working_dir = task.home;  // outside the worktree
        Outcome outside = task.sh("echo RAN");
        INFO(outside.error);
        CHECK(outside.status != OMS_OK);
        CHECK(outside.out.find("RAN") == std::string::npos);
        if (warm) task.end_task();
    }
}
