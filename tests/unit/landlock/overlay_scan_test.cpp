// A worktree on overlayfs (a container's layered worktree, podman's `:O`)
// is never taken from the scan cache: a merged folder shows its upper
// folder's times, so a keypair the user drops into the lower folder would
// leave them unchanged and a cached walk would not look again. Made real
// in a mount namespace of a child (a user namespace first when not root,
// so it runs as an ordinary user too), which reports what it found over a
// pipe. The control: the same steps on the temp folder's own file system
// are cached, and still find the new keypair (its folder's times moved).
#include "scan_tree.hpp"
#include "secret_scan.hpp"

#include <catch2/catch.hpp>

#include <sched.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <sstream>

using namespace oms::landlock;
using namespace oms::landlock::test;

namespace {

bool write_text(const std::string& path, const std::string& text) {
    std::ofstream out(path);
    out << text;
    return static_cast<bool>(out.flush());
}

bool enter_private_mounts() {
    const uid_t uid = geteuid();
    const gid_t gid = getegid();
    if (uid != 0) {
        if (unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0) return false;
        if (!write_text("/proc/self/setgroups", "deny") ||
            !write_text("/proc/self/uid_map", "0 " + std::to_string(uid) + " 1") ||
            !write_text("/proc/self/gid_map", "0 " + std::to_string(gid) + " 1"))
            return false;
    } else if (unshare(CLONE_NEWNS) != 0) {
        return false;
    }
    return mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) == 0;
}

// Warm cache, then a keypair written to `drop_into`, then one more cached
// walk of `root`: what it found and counted, as "key=value" lines.
std::string walk_after_drop(const std::string& root, const std::string& cache, const std::string& drop_into) {
    const ScanRequest request{{root}, keypair_suffixes(), {}};
    find_secret_files_cached(request, cache, nullptr, kTestWindowNs, nullptr);
    let_time_pass();
    find_secret_files_cached(request, cache, nullptr, kTestWindowNs, nullptr);
    oms::test::write_file(drop_into + "/late-keypair.json", "[9]");
    ScanStats stats;
    const auto found = find_secret_files_cached(request, cache, &stats, kTestWindowNs, nullptr);
    std::ostringstream out;
    out << "found=" << std::count(found.begin(), found.end(), root + "/a/late-keypair.json") << "\n"
        << "uncached=" << stats.roots_uncached << "\n";
    return out.str();
}

std::string overlay_facts(const std::string& base) {
    for (const char* folder : {"/lower/a", "/upper/a", "/work", "/merged", "/cache"})
        oms::test::make_dirs(base + folder);
    oms::test::write_file(base + "/lower/a/plain.txt", "nothing secret");
    if (!enter_private_mounts()) return "setup=no mount namespace\n";
    const std::string options = "lowerdir=" + base + "/lower,upperdir=" + base + "/upper,workdir=" + base + "/work";
    if (mount("overlay", (base + "/merged").c_str(), "overlay", 0, options.c_str()) != 0)
        return "setup=overlay mount refused\n";
    let_time_pass();
    return walk_after_drop(base + "/merged", base + "/cache", base + "/lower/a");  // a is merged: in both layers
}

std::string in_child(const std::string& base) {
    int pipe_fds[2];
    REQUIRE(pipe(pipe_fds) == 0);
    const pid_t child = fork();
    REQUIRE(child >= 0);
    if (child == 0) {
        close(pipe_fds[0]);
        const std::string facts = overlay_facts(base);
        _exit(write(pipe_fds[1], facts.data(), facts.size()) == ssize_t(facts.size()) ? 0 : 1);
    }
    close(pipe_fds[1]);
    std::string facts;
    char buffer[1024];
    for (ssize_t n; (n = read(pipe_fds[0], buffer, sizeof buffer)) > 0;) facts.append(buffer, size_t(n));
    close(pipe_fds[0]);
    int status = 0;
    waitpid(child, &status, 0);
    return facts;
}

}  // namespace

TEST_CASE("a worktree on overlayfs is walked in full: a keypair dropped into a lower folder is found", "[scan-cache]") {
    oms::test::TempDir base("oms-overlay-scan");
    const std::string facts = in_child(base.path());
    INFO(facts);
    REQUIRE_THAT(facts, !Catch::Contains("setup="));
    CHECK_THAT(facts, Catch::Contains("found=1\n"));
    CHECK_THAT(facts, Catch::Contains("uncached=1\n"));
    // The control: on the temp folder's file system the walk is cached, and
    // the folder's own times show the new keypair.
    oms::test::TempDir plain("oms-plain-scan");
    oms::test::make_dirs(plain / "root/a");
    oms::test::make_dirs(plain / "cache");
    oms::test::write_file(plain / "root/a/plain.txt", "nothing secret");
    let_time_pass();
    const std::string control = walk_after_drop(plain / "root", plain / "cache", plain / "root/a");
    CHECK(control == "found=1\nuncached=0\n");
}
