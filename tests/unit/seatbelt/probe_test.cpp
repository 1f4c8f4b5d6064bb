// What `oms doctor` learns from the seatbelt backend, under an injected
// platform and sandbox-exec path.
#include "loaded_plugin.hpp"
#include "temp_dir.hpp"

#include <catch2/catch.hpp>

#include <sys/stat.h>

using namespace oms::test;
using namespace oms::test::seatbelt;

namespace {

struct ProbeResult {
    oms_status status;
    std::string reason;
    ReportCollector report;
};

ProbeResult probe(LoadedPlugin& plugin) {
    ProbeResult result;
    ErrorBuffer error;
    result.status = plugin.api().probe(plugin.instance(), result.report.sink(), error.get());
    result.reason = error.message();
    return result;
}

std::string fake_executable(const TempDir& dir) {
    const std::string path = dir / "sandbox-exec";
    write_file(path, "#!/bin/sh\nexit 0\n");
    ::chmod(path.c_str(), 0755);
    return path;
}

bool contains(const std::vector<std::string>& lines, const std::string& text) {
    for (const auto& line : lines)
        if (line.find(text) != std::string::npos) return true;
    return false;
}

}  // namespace

TEST_CASE("the descriptor declares a confining macOS backend", "[seatbelt][probe]") {
    LoadedPlugin plugin;
    CHECK(std::string(plugin.descriptor().id) == "seatbelt");
    CHECK(std::string(plugin.descriptor().kind) == OMS_KIND_BACKEND);
    CHECK(plugin.api().flags == (OMS_BACKEND_CONFINES | OMS_BACKEND_SHARES_PROCESS_GROUP));
    CHECK(plugin.api().strength == 100);
    CHECK(std::string(plugin.api().platforms) == "macos");
    REQUIRE(plugin.descriptor().config_key_count == 1);
    CHECK(std::string(plugin.descriptor().config_keys[0].name) == "sandbox_exec");
    CHECK(plugin.descriptor().config_keys[0].type == OMS_CONFIG_STRING);
    CHECK(plugin.descriptor().config_keys[0].flags == 0u);  // a worktree may never redirect it
}

TEST_CASE("on Linux the backend is unavailable: not macOS", "[seatbelt][probe]") {
    ScopedEnv platform("OMS_SEATBELT_PLATFORM", "linux");
    ScopedEnv exec("OMS_SEATBELT_EXEC", nullptr);
    LoadedPlugin plugin;
    auto result = probe(plugin);
    CHECK(result.status == OMS_ERR_UNAVAILABLE);
    CHECK(result.reason == "not macOS");
    CHECK(result.report.of(OMS_REPORT_SUMMARY).empty());
}

TEST_CASE("this build machine is not macOS without injection", "[seatbelt][probe]") {
    ScopedEnv platform("OMS_SEATBELT_PLATFORM", nullptr);
    LoadedPlugin plugin;
    auto result = probe(plugin);
#if defined(__APPLE__)
    CHECK(result.report.of(OMS_REPORT_DETAIL).at(0) == "platform: macos (build)");
#else
    CHECK(result.status == OMS_ERR_UNAVAILABLE);
    CHECK(result.reason == "not macOS");
    CHECK(result.report.of(OMS_REPORT_DETAIL).at(0) == "platform: linux (build)");
#endif
}

TEST_CASE("macOS without sandbox-exec is unavailable with the path named", "[seatbelt][probe]") {
    ScopedEnv platform("OMS_SEATBELT_PLATFORM", "macos");
    ScopedEnv exec("OMS_SEATBELT_EXEC", nullptr);
    ScopedEnv nested("APP_SANDBOX_CONTAINER_ID", nullptr);
    LoadedPlugin plugin;
    auto result = probe(plugin);
    CHECK(result.status == OMS_ERR_UNAVAILABLE);
    CHECK(result.reason == "sandbox-exec not found at /usr/bin/sandbox-exec");
    CHECK(result.report.of(OMS_REPORT_SUMMARY).empty());
    CHECK(contains(result.report.of(OMS_REPORT_DETAIL), "sandbox-exec: /usr/bin/sandbox-exec (default)"));
}

TEST_CASE("macOS with sandbox-exec is usable and says so", "[seatbelt][probe]") {
    TempDir dir;
    const std::string exec_path = fake_executable(dir);
    ScopedEnv platform("OMS_SEATBELT_PLATFORM", "macos");
    ScopedEnv exec("OMS_SEATBELT_EXEC", exec_path.c_str());
    ScopedEnv nested("APP_SANDBOX_CONTAINER_ID", nullptr);
    LoadedPlugin plugin;
    auto result = probe(plugin);
    REQUIRE(result.status == OMS_OK);
    CHECK(result.report.of(OMS_REPORT_SUMMARY) == std::vector<std::string>{"host (seatbelt: " + exec_path + ")"});
    REQUIRE(result.report.of(OMS_REPORT_SETTINGS).size() == 1);
    CHECK(result.report.of(OMS_REPORT_SETTINGS)[0].find("Seatbelt") != std::string::npos);
    CHECK(contains(result.report.of(OMS_REPORT_DETAIL), "(OMS_SEATBELT_EXEC (test hook))"));
    CHECK(contains(result.report.of(OMS_REPORT_DETAIL), "platform: macos (OMS_SEATBELT_PLATFORM (test hook))"));
}

TEST_CASE("the config key sets sandbox-exec's path, the test hook overrides it", "[seatbelt][probe]") {
    TempDir dir;
    const std::string exec_path = fake_executable(dir);
    ScopedEnv platform("OMS_SEATBELT_PLATFORM", "macos");
    ScopedEnv nested("APP_SANDBOX_CONTAINER_ID", nullptr);
    {
        ScopedEnv exec("OMS_SEATBELT_EXEC", nullptr);
        LoadedPlugin plugin;
        plugin.host().strings["sandbox_exec"] = exec_path;
        auto result = probe(plugin);
        CHECK(result.status == OMS_OK);
        CHECK(contains(result.report.of(OMS_REPORT_DETAIL), exec_path + " (config key sandbox_exec)"));
    }
    {
        ScopedEnv exec("OMS_SEATBELT_EXEC", "/nonexistent/sandbox-exec");
        LoadedPlugin plugin;
        plugin.host().strings["sandbox_exec"] = exec_path;
        auto result = probe(plugin);
        CHECK(result.status == OMS_ERR_UNAVAILABLE);
        CHECK(result.reason == "sandbox-exec not found at /nonexistent/sandbox-exec");
    }
}

TEST_CASE("a relative sandbox-exec path is refused", "[seatbelt][probe]") {
    ScopedEnv platform("OMS_SEATBELT_PLATFORM", "macos");
    ScopedEnv exec("OMS_SEATBELT_EXEC", "sandbox-exec");
    ScopedEnv nested("APP_SANDBOX_CONTAINER_ID", nullptr);
    LoadedPlugin plugin;
    auto result = probe(plugin);
    CHECK(result.status == OMS_ERR_UNAVAILABLE);
    CHECK(result.reason == "sandbox-exec path is not absolute: sandbox-exec");
}

TEST_CASE("inside a Seatbelt sandbox doctor says already confined", "[seatbelt][probe]") {
    TempDir dir;
    const std::string exec_path = fake_executable(dir);
    ScopedEnv platform("OMS_SEATBELT_PLATFORM", "macos");
    ScopedEnv exec("OMS_SEATBELT_EXEC", exec_path.c_str());
    ScopedEnv nested("APP_SANDBOX_CONTAINER_ID", "com.example.app");
    LoadedPlugin plugin;
    auto result = probe(plugin);
    CHECK(result.status == OMS_ERR_UNAVAILABLE);
    CHECK(result.reason.rfind("already confined", 0) == 0);
    CHECK(contains(result.report.of(OMS_REPORT_DETAIL), "nested: already confined (APP_SANDBOX_CONTAINER_ID is set)"));
}
