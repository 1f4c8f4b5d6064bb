// Where the full mode cannot start (namespaces refused, mounts refused in
// the namespace, no Landlock: each made here by refuse_syscalls.c around
// oms), oms decides from a real start: doctor never calls the backend
// active, names the missing piece in one line, and `oms run` refuses with
// that line before anything of the command runs. The same probes run in
// the full mode as the positive control, and the start probe's cached
// verdict follows the environment it was made in.
#include "test_support.hpp"

#include "process.hpp"
#include "temp_dir.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>

using namespace oms::test;

namespace {

const char* const kEnvironments[] = {"full", "namespaces", "mounts", "landlock"};

std::string refuse_syscalls() {
    const char* path = std::getenv("OMS_REFUSE_SYSCALLS");
    if (!path) throw std::runtime_error("OMS_REFUSE_SYSCALLS is not set (run the tests through ctest)");
    return path;
}

// oms with `args`, in the world, inside `environment`.
ProcessResult oms_in(const World& w, const std::string& environment, const std::vector<std::string>& args) {
    std::vector<std::string> argv;
    if (environment != "full") argv = {refuse_syscalls(), environment, "--"};
    argv.push_back(oms_binary());
    argv.insert(argv.end(), args.begin(), args.end());
    return run_process(argv, {oms_world_env(w), std::nullopt, w.work, 60});
}

// The start of the line that names what `environment` lacks.
std::string expected_refusal(const std::string& environment) {
    const bool root = geteuid() == 0;
    if (environment == "namespaces")
        return root ? "landlock: namespaces are refused here" : "landlock: user namespaces are refused here";
    if (environment == "mounts") return "landlock: mounts are refused in the sandbox's namespace";
    return "Landlock is not available in this kernel";
}

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

size_t non_empty_lines(const std::string& text) {
    size_t count = 0;
    for (const auto& line : lines_starting(text, ""))
        if (!line.empty()) ++count;
    return count;
}

std::string start_probe_cache(const World& w) { return w.root / "xdg-state/oms/landlock-start-probe"; }

long long modified_ns(const std::string& path) {
    struct stat st {};
    if (stat(path.c_str(), &st) != 0) return -1;
    return static_cast<long long>(st.st_mtim.tv_sec) * 1000000000LL + st.st_mtim.tv_nsec;
}

// The enforcement probes of the full mode, in one command: its positive
// control (the worktree read and written) and the refusals (HOME's secret,
// a keypair, a write outside the write roots).
const char* const kProbes = R"SH(
    cat {home}/.ssh/id_rsa; cat {home}/.aws/credentials; cat {work}/wallet-keypair.json
    echo pwned > {outside}/file; echo pwned > {outside}/new
    cat {work}/README && echo made > {work}/created.txt && echo WROTE-WORKTREE
    exit 0)SH";

void check_no_secret_came_out(const ProcessResult& r) {
    for (const char* secret : {kSshKey, kAwsKey, kKeypair}) {
        CHECK_FALSE(has(r.out, secret));
        CHECK_FALSE(has(r.err, secret));
    }
}

void check_outside_untouched(const World& w) {
    CHECK(read_file(w.outside + "/file") == "OUTSIDE-ORIGINAL");
    CHECK_FALSE(exists(w.outside + "/new"));
}

}  // namespace

TEST_CASE("the wrapper really makes each environment", "[landlock][ladder]") {
    // Without it every refusal below would be the machine's, not the test's.
    const std::string wrapper = refuse_syscalls();
    const std::vector<std::string> new_network{"/usr/bin/unshare", "--net", "--map-root-user", "/bin/true"};
    const std::vector<std::string> new_mount{"/usr/bin/unshare", "--mount", "--map-root-user",
                                             "/bin/mount", "-t", "tmpfs", "none", "/mnt"};
    auto in = [&](const char* environment, const std::vector<std::string>& argv) {
        std::vector<std::string> wrapped{wrapper, environment, "--"};
        wrapped.insert(wrapped.end(), argv.begin(), argv.end());
        return run_process(wrapped);
    };
    REQUIRE(run_process(new_network).exit_code == 0);  // this machine makes namespaces
    CHECK(in("namespaces", new_network).exit_code != 0);
    CHECK(in("namespaces", {"/bin/sh", "-c", "echo fine"}).out == "fine\n");  // forks still work
    REQUIRE(run_process(new_mount).exit_code == 0);  // and mounts in them
    CHECK(in("mounts", new_mount).exit_code != 0);
    CHECK(in("mounts", new_network).exit_code == 0);  // namespaces still work there
}

TEST_CASE("doctor calls landlock active only where a confined start works, else names what is missing",
          "[landlock][ladder]") {
    require_landlock();
    for (const std::string environment : kEnvironments) {
        DYNAMIC_SECTION(environment) {
            World w;
            auto r = oms_in(w, environment, {"doctor", "--sandbox", "landlock"});
            INFO(r.out << r.err);
            if (environment == "full") {
                CHECK(r.exit_code == 0);
                CHECK(has(r.out, "rung: 1, the full mode"));
                CHECK(has(r.out, "start check: a confined `true` started here"));
                CHECK(has(r.out, "namespaces: mount, PID, network"));
                continue;
            }
            CHECK(r.exit_code == 69);
            CHECK(has(r.out, expected_refusal(environment)));
            CHECK_FALSE(has(r.out, "rung: 1"));
            CHECK_FALSE(has(r.out, "namespaces: mount, PID, network"));
            for (const auto& line : lines_starting(r.out, "  landlock")) CHECK_FALSE(has(line, "active"));
        }
    }
}

TEST_CASE("oms run confines in the full mode and refuses in one line, running nothing, elsewhere",
          "[landlock][ladder]") {
    require_landlock();
    for (const std::string environment : kEnvironments) {
        DYNAMIC_SECTION(environment) {
            World w;
            auto r = oms_in(w, environment,
                            {"run", "--sandbox", "landlock", "--worktree", w.work, "--pinned", w.pinned, "--", "sh",
                             "-c", expand(w, kProbes)});
            INFO(r.out << r.err);
            check_no_secret_came_out(r);
            check_outside_untouched(w);
            if (environment == "full") {
                CHECK(r.exit_code == 0);
                CHECK(has(r.out, "WORKTREE-README"));  // positive control: read
                CHECK(read_file(w.work + "/created.txt") == "made\n");  // and write
                continue;
            }
            CHECK(r.exit_code == 69);
            CHECK(has(r.err, expected_refusal(environment)));
            CHECK(non_empty_lines(r.err) == 1);
            CHECK_FALSE(exists(w.work + "/created.txt"));  // nothing of the command ran
        }
    }
}

TEST_CASE("the start verdict is probed once per environment and then read from the state folder",
          "[landlock][ladder]") {
    require_landlock();
    World w;
    const std::string cache = start_probe_cache(w);
    REQUIRE(oms_in(w, "full", {"doctor", "--sandbox", "landlock"}).exit_code == 0);
    REQUIRE(has(read_file(cache), "verdict started"));
    const long long first = modified_ns(cache);
    REQUIRE(oms_in(w, "full", {"doctor", "--sandbox", "landlock"}).exit_code == 0);
    CHECK(modified_ns(cache) == first);  // no second probe

    // Another environment (here a seccomp filter around oms) is another key:
    // the verdict made without it is not taken for it. A refusal is never
    // stored (each run probes again where the backend cannot run).
    auto refused = oms_in(w, "namespaces", {"doctor", "--sandbox", "landlock"});
    CHECK(refused.exit_code == 69);
    CHECK(has(refused.out, expected_refusal("namespaces")));
    CHECK(modified_ns(cache) == first);
    auto mounts = oms_in(w, "mounts", {"doctor", "--sandbox", "landlock"});
    CHECK(has(mounts.out, expected_refusal("mounts")));
    CHECK(oms_in(w, "full", {"doctor", "--sandbox", "landlock"}).exit_code == 0);
    CHECK(modified_ns(cache) == first);
}
