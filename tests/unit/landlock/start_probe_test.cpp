// The start probe's refusal lines (one line naming the missing piece and
// how to get it, from the failed step and the user namespace switches) and
// its cache (a verdict read back only under the very key it was stored).
#include "start_probe_cache.hpp"
#include "start_refusal.hpp"

#include <catch2/catch.hpp>

#include <errno.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

using namespace oms::landlock;

namespace {

bool one_line(const std::string& text) { return !text.empty() && text.find('\n') == std::string::npos; }
bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

UserNamespaceSwitches switches(std::optional<long> clone, std::optional<long> max, std::optional<long> apparmor) {
    return UserNamespaceSwitches{clone, max, apparmor};
}

}  // namespace

TEST_CASE("a refused user namespace names the switch that refuses it and how to get past it", "[start-probe]") {
    const auto apparmor = start_refusal("", EPERM, false, switches(1, 1000, 1));
    CHECK(one_line(apparmor));
    CHECK(has(apparmor, "kernel.apparmor_restrict_unprivileged_userns=1"));
    CHECK(has(apparmor, "AppArmor profile"));
    CHECK(has(apparmor, "or run as root"));
    // Ubuntu's restriction lets the namespace be made but no mount in it.
    CHECK(start_refusal("make the mount namespace private", EPERM, false, switches(1, 1000, 1)) == apparmor);
    CHECK(start_refusal("write /proc/self/uid_map", EPERM, false, switches(1, 1000, 1)) == apparmor);

    const auto debian = start_refusal("", EPERM, false, switches(0, 1000, std::nullopt));
    CHECK(has(debian, "kernel.unprivileged_userns_clone=0"));
    CHECK(has(debian, "sysctl -w kernel.unprivileged_userns_clone=1"));
    const auto count = start_refusal("", ENOSPC, false, switches(std::nullopt, 0, std::nullopt));
    CHECK(has(count, "user.max_user_namespaces=0"));

    const auto filtered = start_refusal("", EPERM, false, switches(1, 1000, 0));
    CHECK(one_line(filtered));
    CHECK(has(filtered, "user namespaces are refused here"));
    CHECK(has(filtered, "Operation not permitted"));
    CHECK(has(filtered, "seccomp filter or a container's policy"));
}

TEST_CASE("as root, a refusal never suggests running as root", "[start-probe]") {
    const auto namespaces = start_refusal("", EPERM, true, switches(1, 1000, 1));
    CHECK(one_line(namespaces));
    CHECK(has(namespaces, "landlock: namespaces are refused here"));
    CHECK(has(namespaces, "CAP_SYS_ADMIN"));
    CHECK_FALSE(has(namespaces, "run as root"));
    // The AppArmor restriction binds ordinary users only: root's refused
    // mount is a container's doing.
    const auto mounts = start_refusal("make the mount namespace private", EPERM, true, switches(1, 1000, 1));
    CHECK(has(mounts, "mounts are refused"));
    CHECK_FALSE(has(mounts, "run as root"));
}

TEST_CASE("a refused Landlock or seccomp step is named as such", "[start-probe]") {
    const auto landlock = start_refusal("create the Landlock ruleset", ENOSYS, false, switches(1, 1000, 0));
    CHECK(has(landlock, "Landlock is refused here"));
    CHECK(has(landlock, "lsm="));
    CHECK(has(start_refusal("install the seccomp filter", EINVAL, true, {}), "seccomp filters are refused"));
    CHECK(has(start_refusal("enter the worktree", ENOENT, true, {}), "could not enter the worktree"));
    CHECK(has(start_refusal("", EPERM, true, {}), "could not create the namespaces: Operation not permitted"));
}

TEST_CASE("the cached verdict is read back only under its own key", "[start-probe]") {
    const auto folder = std::filesystem::temp_directory_path() / ("oms-start-probe-" + std::to_string(getpid()));
    std::filesystem::remove_all(folder);
    const std::string file = (folder / "state/oms/landlock-start-probe").string();
    const std::string key = start_probe_key("abi 6 report_connects 1");
    CHECK_FALSE(read_cached_verdict(file, key));

    write_cached_verdict(file, key, StartVerdict{false, "landlock: mounts are refused", 0, ""});
    auto refused = read_cached_verdict(file, key);
    REQUIRE(refused);
    CHECK_FALSE(refused->started);
    CHECK(refused->refusal == "landlock: mounts are refused");
    CHECK_FALSE(read_cached_verdict(file, start_probe_key("abi 5 report_connects 1")));

    write_cached_verdict(file, key, StartVerdict{true, "", 3, "landlock: mounts are refused"});
    auto alone = read_cached_verdict(file, key);
    REQUIRE(alone);
    CHECK(alone->started);
    CHECK(alone->rung == 3);
    CHECK(alone->above == "landlock: mounts are refused");

    write_cached_verdict(file, key, StartVerdict{true, "", 2, "Landlock is not available in this kernel"});
    auto mounts_alone = read_cached_verdict(file, key);
    REQUIRE(mounts_alone);
    CHECK(mounts_alone->rung == 2);
    CHECK(mounts_alone->above == "Landlock is not available in this kernel");

    write_cached_verdict(file, key, StartVerdict{true, "", 1, ""});
    auto started = read_cached_verdict(file, key);
    REQUIRE(started);
    CHECK(started->started);
    CHECK(started->rung == 1);
    CHECK((std::filesystem::status(file).permissions() & std::filesystem::perms::all) ==
          (std::filesystem::perms::owner_read | std::filesystem::perms::owner_write));

    // A link planted at the cache's place is never followed.
    const std::string elsewhere = (folder / "elsewhere").string();
    std::filesystem::rename(file, elsewhere);
    std::filesystem::create_symlink(elsewhere, file);
    CHECK_FALSE(read_cached_verdict(file, key));
    std::filesystem::remove_all(folder);
}

TEST_CASE("the key holds what the verdict depends on", "[start-probe]") {
    const std::string key = start_probe_key("abi 6 report_connects 1");
    for (const char* part : {"boot ", "kernel ", "uid ", "build ", "settings abi 6", "namespaces ", "Seccomp",
                             "switches "})
        CHECK(has(key, part));
    CHECK(start_probe_key("abi 6 report_connects 1") == key);  // stable within one process
}
