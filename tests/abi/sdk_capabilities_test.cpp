// What sdk.hpp declares for a backend and how it fails closed. The backend
// here is written the way a 1.0 plugin was: no OMS_TARGET_ABI_MINOR, no
// rule_kinds. It targets 1.0 (so a 1.0 host loads it), declares the frozen
// kinds 1 to 10, and a rule of another kind never reaches its code.
#include "plugin_harness.hpp"

#include <oms/sdk.hpp>

#include <catch2/catch.hpp>

using namespace oms::test;

namespace {

int spawned = 0;  // how often the plugin's own spawn ran

class Written10 final : public oms::sdk::BackendPlugin {
public:
    static constexpr const char* id = "written-for-10";
    static constexpr const char* version = "1.0.0";
    static constexpr const char* summary = "a backend as written for ABI 1.0";
    static constexpr uint32_t flags = OMS_BACKEND_CONFINES;
    static constexpr uint32_t strength = 1;
    static constexpr const char* platforms = "linux";
    static const oms_config_key* config_keys() { return nullptr; }
    static size_t config_key_count() { return 0; }
    using BackendPlugin::BackendPlugin;
    void probe(const oms::sdk::Report&) override {}
    void render(const oms::sdk::Context&, const oms::sdk::Policy&, const oms::sdk::Report&) override {}
    std::unique_ptr<oms::sdk::Run> spawn(const oms::sdk::Context&, const oms::sdk::Policy& policy, oms_stdio) override {
        ++spawned;
        for (auto& rule : policy.rules())
            switch (rule.kind) {
            default: break;  // the common way: skip what it does not know
            }
        throw oms::sdk::Error(OMS_ERR_FAILED, "reached the plugin");
    }
};

}  // namespace

OMS_EXPORT_BACKEND_PLUGIN(Written10)

namespace {

struct Loaded {
    FakeHost host;
    const oms_plugin_descriptor* descriptor = nullptr;
    const oms_backend_api* api = nullptr;
    void* instance = nullptr;
    ErrorBuffer error;
    Loaded() {
        REQUIRE(oms_plugin_entry(1, 0, &descriptor, error.get()) == OMS_OK);  // a 1.0 host
        api = static_cast<const oms_backend_api*>(descriptor->interface);
        REQUIRE(descriptor->create(host.api(), &instance, error.get()) == OMS_OK);
    }
    ~Loaded() { descriptor->destroy(instance); }
    oms_status spawn(PolicyBuilder& policy, uint32_t flags = 0) {
        ContextBuilder context;
        context.worktree = "/work/tree";
        context.flags = flags;
        void* run = nullptr;
        return api->spawn(instance, context.build(), policy.build(), oms_stdio{0, 1, 2}, &run, error.get());
    }
};

}  // namespace

TEST_CASE("a backend that names no target minor targets 1.0 and declares the 1.0 kinds") {
    Loaded plugin;
    CHECK(plugin.descriptor->abi_minor == 0);
    CHECK(plugin.api->struct_size == sizeof(oms_backend_api));
    CHECK(plugin.api->rule_kinds == OMS_RULE_KINDS_1_0);
    CHECK(plugin.api->rule_kinds == 0x7fe);  // kinds 1 to 10
    CHECK(plugin.api->run_flags == (OMS_RUN_BEST_EFFORT | OMS_RUN_INTERACTIVE));
}

TEST_CASE("sdk.hpp refuses a rule of a kind the backend did not declare before its code runs") {
    Loaded plugin;
    PolicyBuilder policy;
    policy.add(OMS_RULE_WRITE_ALLOW_TREE, "/work/tree").add(OMS_RULE_WRITE_DENY_NAME, ".git");
    spawned = 0;
    CHECK(plugin.spawn(policy) == OMS_ERR_UNSUPPORTED);
    CHECK(spawned == 0);
    CHECK_THAT(plugin.error.message(), Catch::Contains("written-for-10: the policy holds a rule of kind WRITE_DENY_NAME "
                                                       "(11) '.git', which this backend does not declare; nothing ran"));
    // The same for a kind no header defines yet.
    PolicyBuilder future;
    future.add(OMS_RULE_KIND_LAST + 1, "x");
    CHECK(plugin.spawn(future) == OMS_ERR_UNSUPPORTED);
    CHECK(spawned == 0);
    // Control: the 1.0 kinds alone reach the plugin.
    PolicyBuilder known;
    known.add(OMS_RULE_WRITE_ALLOW_TREE, "/work/tree").add(OMS_RULE_WRITE_DENY, "/work/tree/.git");
    CHECK(plugin.spawn(known) == OMS_ERR_FAILED);
    CHECK(plugin.error.message() == "reached the plugin");
    CHECK(spawned == 1);
}

TEST_CASE("sdk.hpp refuses run flags the backend does not understand") {
    Loaded plugin;
    PolicyBuilder policy;
    policy.add(OMS_RULE_WRITE_ALLOW_TREE, "/work/tree");
    spawned = 0;
    CHECK(plugin.spawn(policy, OMS_RUN_BEST_EFFORT | 0x80u) == OMS_ERR_UNSUPPORTED);
    CHECK_THAT(plugin.error.message(), Catch::Contains("flags 128 this backend does not understand"));
    CHECK(spawned == 0);
    CHECK(plugin.spawn(policy, OMS_RUN_BEST_EFFORT | OMS_RUN_INTERACTIVE) == OMS_ERR_FAILED);  // control
    CHECK(spawned == 1);
}
