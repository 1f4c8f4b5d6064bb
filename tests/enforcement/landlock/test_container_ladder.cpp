// The ladder in a real unprivileged container: the test image
// (tests/docker/build-test-image.sh) run by Docker with its default seccomp
// profile and no added capability, as the user running the test (root, or
// an ordinary user through tests/run-as-user.sh), oms and the host's
// libraries mounted read-only, the test world mounted at its own path. The
// full mode cannot start there (namespaces refused); doctor says rung 3 and
// the full mode's probes hold, with host-side evidence in the world.
#include "ladder_probes.hpp"
#include "test_support.hpp"

#include "process.hpp"
#include "temp_dir.hpp"

#include <unistd.h>

#include <cstdlib>
#include <iostream>

using namespace oms::test;

namespace {

std::string trimmed(std::string text) {
    while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
    return text;
}

// Skips (exit 77) without a daemon, unless OMS_REQUIRE_DOCKER=1 says one is required.
void require_docker() {
    auto info = run_process({"/usr/bin/docker", "info", "--format", "{{.ServerVersion}}"});
    if (info.exit_code == 0) return;
    const char* required = std::getenv("OMS_REQUIRE_DOCKER");
    if (required && std::string(required) == "1") FAIL("no Docker daemon, and OMS_REQUIRE_DOCKER=1: " << info.err);
    std::cerr << "skipped: no Docker daemon; start one with tests/docker/start-dockerd.sh" << std::endl;
    std::exit(77);
}

std::string test_image() {
    const char* source = std::getenv("OMS_SOURCE_DIR");
    auto r = run_process({"/bin/sh", std::string(source ? source : ".") + "/tests/docker/build-test-image.sh"});
    if (r.exit_code != 0) FAIL("build-test-image.sh failed: " << r.err);
    return trimmed(r.out);
}

// oms `args` in a container of the test image, as this test's user.
ProcessResult oms_in_container(const World& w, const std::vector<std::string>& args) {
    const char* build_env = std::getenv("OMS_BUILD_DIR");
    REQUIRE(build_env);
    const std::string build = build_env;
    std::vector<std::string> argv{"/usr/bin/docker", "run", "--rm",
                                  "--user", std::to_string(geteuid()) + ":" + std::to_string(getegid()),
                                  "-v", "/usr:/usr:ro", "-v", "/usr/lib:/lib:ro", "-v", "/usr/lib64:/lib64:ro",
                                  "-v", build + ":" + build + ":ro", "-v", w.root.path() + ":" + w.root.path(),
                                  "-w", w.work};
    for (const auto& entry : oms_world_env(w))
        for (const char* name : {"HOME=", "XDG_CONFIG_HOME=", "XDG_STATE_HOME="})
            if (entry.rfind(name, 0) == 0) argv.insert(argv.end(), {"-e", entry});
    argv.insert(argv.end(), {"-e", "PATH=/usr/bin:/bin", test_image(), oms_binary()});
    argv.insert(argv.end(), args.begin(), args.end());
    return run_process(argv, {{}, std::nullopt, w.work, 120});
}

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("in an unprivileged Docker container doctor says rung 3 and the full mode's probes hold",
          "[landlock][ladder][docker]") {
    require_landlock();
    require_docker();
    World w;
    make_dirs(w.work + "/src");
    auto doctor = oms_in_container(w, {"doctor", "--sandbox", "landlock", "--worktree", w.work});
    INFO(doctor.out << doctor.err);
    CHECK(doctor.exit_code == 0);
    CHECK(has(doctor.out, "rung: 3, Landlock alone"));
    CHECK(has(doctor.out, geteuid() == 0 ? "landlock: namespaces are refused here"
                                         : "landlock: user namespaces are refused here"));

    auto r = oms_in_container(w, {"run", "--sandbox", "landlock", "--worktree", w.work, "--pinned", w.pinned, "--",
                                  "sh", "-c", expand(w, probes())});
    INFO(r.out << r.err);
    check_refusals_held(w, r);
    check_confined_run_worked(w, r);
}
