// A worktree on overlayfs (a container's layered worktree, podman's `:O`)
// is never taken from the scan cache: a merged folder shows its upper
// folder's times, so a keypair the user drops into the lower folder would
// leave them unchanged and a cached walk would not look again. Made real
// in a mount namespace of a child (a user namespace first when not root,
// so it runs as an ordinary user too), which reports what it found over a
// pipe. The control: the same steps on the temp folder's own file system
// are cached, and still find the new keypair (its folder's times moved).
#include "namespace_child.hpp"
#include "keypair_walk_tree.hpp"
#include <oms/keypair_walk.hpp>

#include <catch2/catch.hpp>

#include <sched.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <sstream>

using namespace oms::sdk;
using namespace oms::sdk::test;

namespace {

bool enter_private_mounts() {
    return oms::test::enter_namespaces(CLONE_NEWNS) && mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) == 0;
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

}  // namespace

TEST_CASE("a worktree on overlayfs is walked in full: a keypair dropped into a lower folder is found", "[scan-cache]") {
    oms::test::TempDir base("oms-overlay-scan");
    const std::string facts = oms::test::facts_from_child([&] { return overlay_facts(base.path()); });
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
