// `oms verify --sandbox docker` (issue 11, item 3), through the real oms:
// the check runs in a container whose worktree is the read-only snapshot,
// next to its own stand-in Surfnet (the static net probe's `serve`, started
// inside the same container by the runner's launcher), with no relayed host
// port although the config allows the Surfnet port to `oms run`. Done as a
// check would: it reads a file the host changes while it runs, tries to write
// the snapshot, talks to its Surfnet, tries the host's listener on the same
// port, writes its results and exits 3. Positive control: `oms run` with the
// same config does reach that host listener (the relay the verifier drops).
#include "docker_fixture.hpp"
#include "marker_listener.hpp"

#include "process.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include <chrono>
#include <filesystem>
#include <map>
#include <thread>

using namespace oms::test;
using namespace oms::test::docker;

namespace {

struct VerifyHome {
    TempDir root{"oms-docker-verify"};
    std::string home = root / "home";
    std::string worktree = root / "wt";
    std::string results = root / "results";

    VerifyHome(bool warm, int surfnet_port, const std::string& docker_extra = "") {
        const std::string manifest = root / "runtime.toml";
        const std::string id = std::to_string(container_uid());
        write_file(manifest, "image = \"" + test_image() + "\"\nuser = \"" + id + ":" + id + "\"\n");
        write_file(home + "/.config/oms/config.toml",
                   "[sandbox]\nbackend = \"docker\"\n\n[plugin.docker]\nmanifest = \"" + manifest + "\"\nwarm = " +
                       (warm ? "true" : "false") + "\n" + docker_extra + "\n[plugin.network]\nsurfnet_port = " +
                       std::to_string(surfnet_port) +
                       "\n\n[verify]\nsurfnet_cmd = [\"bin/net_probe\", \"serve\", \"{port}\"]\n"
                       "inputs = [\"README\", \"bin\"]\n");
        write_file(worktree + "/README", "original\n");
        const std::string probe = worktree + "/bin/net_probe";
        make_dirs(worktree + "/bin");
        std::filesystem::copy_file(OMS_NET_PROBE, probe);
        chmod(probe.c_str(), 0755);
        // The container user owns the worktree, as the host user would.
        if (geteuid() == 0)
            for (const std::string& p : {worktree, worktree + "/README", worktree + "/bin", probe})
                if (chown(p.c_str(), container_uid(), container_uid()) != 0) FAIL("chown failed");
        chmod(root.path().c_str(), 0755);
    }

    ProcessResult oms(const std::vector<std::string>& args) const {
        std::vector<std::string> argv{oms_binary()};
        argv.insert(argv.end(), args.begin(), args.end());
        std::vector<std::string> env{"HOME=" + home, "PATH=/usr/local/bin:/usr/bin:/bin", "LANG=C.UTF-8"};
        for (const char* pass : {"DOCKER_HOST", "OMS_SOURCE_DIR"})
            if (const char* value = getenv(pass)) env.push_back(std::string(pass) + "=" + value);
        return run_process(argv, {env, std::nullopt, worktree, 300});
    }
};

// The check: README as it starts, then (once the host has changed the live
// README and said so in the results folder) README again, a write to the
// snapshot (as its owner would: chmod first), its Surfnet, results, exit 3.
std::string check_script(const std::string& port) {
    return "cat README; echo started > \"$OMS_OUTPUT_DIR/started\"; "
           "i=0; while [ ! -e \"$OMS_OUTPUT_DIR/go\" ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i+1)); done; "
           "cat README; "
           "(chmod u+w . README; echo tampered > README) 2>/dev/null && echo wrote || echo write-refused; "
           "(echo new > planted.txt) 2>/dev/null && echo planted || echo plant-refused; "
           "cat README; "
           "bin/net_probe connect 127.0.0.1 " + port + " marker; "
           "echo result-line > \"$OMS_OUTPUT_DIR/result.txt\"; exit 3";
}

}  // namespace

TEST_CASE("docker verify: snapshot, its own Surfnet, no host port, results and exit status", "[docker][verify]") {
    require_daemon();
    for (bool warm : {false, true}) {
        DYNAMIC_SECTION((warm ? "warm" : "one-shot")) {
            MarkerListener host_listener;  // on the host, on the Surfnet port
            const std::string port = std::to_string(host_listener.port());
            VerifyHome h(warm, host_listener.port());

            // Positive control: a plain run with this config reaches the host
            // listener through the Surfnet relay.
            ProcessResult relayed = h.oms({"run", "--", "bin/net_probe", "connect", "127.0.0.1", port, "relayed"});
            INFO("run: " << relayed.out << relayed.err);
            CHECK(relayed.out == "OK reply=hello-relayed\n");
            CHECK(host_listener.received() == std::vector<std::string>{"relayed"});
            h.oms({"task", "end"});

            // The plan, rendered by the backend: no relayed port, no net rule.
            ProcessResult plan = h.oms({"verify", "--plan", "--", "sh", "-c", "exit 0"});
            INFO("plan: " << plan.out << plan.err);
            CHECK(plan.exit_code == 0);
            CHECK_THAT(plan.out, Catch::Contains("no loopback port is relayed"));
            CHECK_THAT(plan.out, !Catch::Contains("Surfnet relay: container"));
            CHECK_THAT(plan.out, !Catch::Contains("net-connect-loopback"));

            ProcessResult verify;
            std::thread run([&] {
                verify = h.oms({"verify", "--output", h.results, "--", "sh", "-c", check_script(port)});
            });
            const bool started = file_appears(h.results + "/started", std::chrono::seconds(60));
            write_file(h.worktree + "/README", "changed during the check\n");
            if (started) write_file(h.results + "/go", "");
            run.join();
            INFO("verify: " << verify.out << verify.err);
            REQUIRE(started);
            CHECK(verify.exit_code == 3);
            CHECK(verify.out == "original\n"           // before the host's change
                                "original\n"           // after it: the snapshot
                                "write-refused\n"      // the snapshot is read-only
                                "plant-refused\n"
                                "original\n"
                                "OK reply=hello-marker\n");  // its own Surfnet answered
            // The host's listener on the same port got nothing from the check.
            CHECK(host_listener.received() == std::vector<std::string>{"relayed"});
            CHECK(read_file(h.results + "/result.txt") == "result-line\n");
            CHECK(exists(h.results + "/surfnet.log"));
            CHECK(read_file(h.worktree + "/README") == "changed during the check\n");
            CHECK_FALSE(exists(h.worktree + "/planted.txt"));
            CHECK_THAT(verify.err, Catch::Contains("oms verify: the check exited 3"));
            // No container of the check is left: a warm one (keyed on the
            // snapshot's path) ends with the check, as a one-shot one does.
            Cli left = docker_cli({"ps", "-a", "--filter", "label=oms.managed", "--format",
                                   "{{.Label \"oms.worktree\"}}"});
            CHECK(left.code == 0);
            CHECK(left.out.find("/snapshot-") == std::string::npos);
        }
    }
}

TEST_CASE("docker verify: a network other than none is refused before anything runs", "[docker][verify]") {
    require_daemon();
    VerifyHome h(false, 18999, "network = \"bridge\"\n");
    ProcessResult refused =
        h.oms({"verify", "--output", h.results, "--", "sh", "-c", "echo ran > \"$OMS_OUTPUT_DIR/ran\""});
    INFO(refused.out << refused.err);
    CHECK(refused.exit_code == 77);
    CHECK_THAT(refused.err, Catch::Contains("oms verify needs network \"none\""));
    CHECK_FALSE(exists(h.results));
}
