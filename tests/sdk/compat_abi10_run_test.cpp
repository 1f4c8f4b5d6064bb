// A backend written for ABI 1.0 (tests/sdk/abi10_backend), rebuilt unchanged
// against today's SDK, in `oms run`: it targets 1.0, so it loads on a 1.0
// host, and oms lowers the nested .git rule into WRITE_DENY paths it knows.
// Refusing style: the run is not refused ("unknown rule kind 11"). Skipping
// style: the nested .git is not left writable. Control in every run: a
// file in the worktree is written.
#include "oms_env.hpp"

#include <oms/sdk.h>

#include <catch2/catch.hpp>
#include <dlfcn.h>

using namespace oms::test;

namespace {

struct Style {
    const char* id;
    const char* dir;
};
const Style kStyles[] = {{"compat-abi10-refusing", OMS_COMPAT_REFUSING_DIR},
                         {"compat-abi10-skipping", OMS_COMPAT_SKIPPING_DIR}};

std::string plugin_file(const Style& style) { return std::string(style.dir) + "/oms-" + style.id + ".so"; }

}  // namespace

TEST_CASE("a rebuilt ABI 1.0 backend runs with every nested .git read-only, in both styles") {
    for (const Style& style : kStyles) {
        OmsEnv env;
        env.env["OMS_PLUGIN_PATH"] = style.dir;
        write_file(env.worktree + "/vendor/lib/.git/HEAD", "ref: refs/heads/main\n");
        ProcessResult run = env.oms({"run", "--sandbox", style.id, "--", "/bin/sh", "-c",
                                     "echo planted >> vendor/lib/.git/HEAD; echo written >> control.txt; exit 0"});
        INFO(style.id << ": " << run.out << run.err);
        CHECK(run.exit_code == 0);
        CHECK_THAT(run.err, !Catch::Contains("unknown rule kind"));
        CHECK(read_file(env.worktree + "/vendor/lib/.git/HEAD") == "ref: refs/heads/main\n");
        CHECK(read_file(env.worktree + "/control.txt") == "written\n");  // positive control
        ProcessResult policy = env.oms({"policy", "--sandbox", style.id});
        INFO(policy.out << policy.err);
        CHECK_THAT(policy.out, Catch::Contains(env.worktree + "/vendor/lib/.git"));
        CHECK_THAT(policy.out, !Catch::Contains("write-deny-name"));
    }
}

TEST_CASE("a rebuilt ABI 1.0 backend targets 1.0: a 1.0 host loads it, and it declares nothing newer") {
    for (const Style& style : kStyles) {
        INFO(style.id);
        void* library = dlopen(plugin_file(style).c_str(), RTLD_NOW | RTLD_LOCAL);
        REQUIRE(library);
        auto entry = reinterpret_cast<oms_plugin_entry_fn>(dlsym(library, OMS_PLUGIN_ENTRY_SYMBOL));
        REQUIRE(entry);
        char message[256] = "";
        oms_error error{message, sizeof message};
        const oms_plugin_descriptor* descriptor = nullptr;
        CHECK(entry(1, 0, &descriptor, &error) == OMS_OK);  // what a 1.0 host passes
        INFO(message);
        REQUIRE(descriptor);
        CHECK(descriptor->abi_minor == 0);
        const auto* api = static_cast<const oms_backend_api*>(descriptor->interface);
        REQUIRE(api->struct_size >= offsetof(oms_backend_api, rule_kinds) + sizeof(uint64_t));
        CHECK(api->rule_kinds == OMS_RULE_KINDS_1_0);
        CHECK(api->run_flags == OMS_RUN_FLAGS_1_0);
        // Control: another major is still refused.
        CHECK(entry(2, 0, &descriptor, &error) != OMS_OK);
        dlclose(library);
    }
}

TEST_CASE("oms explain under a confining backend without an explain model says unknown, never no sandbox") {
    OmsEnv env;
    env.env["OMS_PLUGIN_PATH"] = OMS_COMPAT_SKIPPING_DIR;
    write_file(env.home + "/.ssh/id_ed25519", "SECRET\n");
    ProcessResult third_party = env.oms({"explain", "--sandbox", "compat-abi10-skipping", "read", env.home + "/.ssh/id_ed25519"});
    INFO(third_party.out << third_party.err);
    CHECK(third_party.exit_code == 0);
    CHECK_THAT(third_party.out, Catch::Contains("read " + env.home + "/.ssh/id_ed25519: unknown under "
                                                "compat-abi10-skipping: run `oms doctor --probe`"));
    CHECK_THAT(third_party.out, !Catch::Contains("no sandbox"));
    CHECK_THAT(third_party.out, !Catch::Contains("allowed"));
    // The environment is the core's own work: still answered.
    ProcessResult variable = env.oms({"explain", "--sandbox", "compat-abi10-skipping", "env", "AWS_SECRET_ACCESS_KEY"});
    CHECK_THAT(variable.out, Catch::Contains("env AWS_SECRET_ACCESS_KEY: denied under compat-abi10-skipping"));
    // Control: landlock declares its model and is explained.
    ProcessResult landlock = env.oms({"explain", "--sandbox", "landlock", "read", env.home + "/.ssh/id_ed25519"});
    INFO(landlock.out << landlock.err);
    CHECK_THAT(landlock.out, !Catch::Contains("unknown"));
    CHECK_THAT(landlock.out, Catch::Contains("/.ssh/id_ed25519: hidden under landlock") ||
                                 Catch::Contains("/.ssh/id_ed25519: denied under landlock"));
}
