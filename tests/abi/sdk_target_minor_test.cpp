// A backend that targets ABI 1.1 through OMS_TARGET_ABI_MINOR gets the 1.1
// kinds by default and refuses a 1.0 host (it may use working_dir); one that
// declares its kinds gets exactly those.
#define OMS_TARGET_ABI_MINOR 1
#include "plugin_harness.hpp"

#include <oms/sdk.hpp>

#include <catch2/catch.hpp>

using namespace oms::test;

namespace {

class Targets11 final : public oms::sdk::BackendPlugin {
public:
    static constexpr const char* id = "targets-11";
    static constexpr const char* version = "1.1.0";
    static constexpr const char* summary = "targets ABI 1.1, declares no scratch trees";
    static constexpr uint32_t flags = OMS_BACKEND_CONFINES;
    static constexpr uint32_t strength = 1;
    static constexpr const char* platforms = "linux";
    static constexpr uint64_t rule_kinds = oms::abi::rule_kinds_of_minor(1) & ~OMS_RULE_BIT(OMS_RULE_WRITE_SCRATCH_TREE);
    static const oms_config_key* config_keys() { return nullptr; }
    static size_t config_key_count() { return 0; }
    using BackendPlugin::BackendPlugin;
    void probe(const oms::sdk::Report&) override {}
    void render(const oms::sdk::Context&, const oms::sdk::Policy&, const oms::sdk::Report&) override {}
    std::unique_ptr<oms::sdk::Run> spawn(const oms::sdk::Context&, const oms::sdk::Policy&, oms_stdio) override {
        throw oms::sdk::Error(OMS_ERR_FAILED, "reached the plugin");
    }
};

}  // namespace

OMS_EXPORT_BACKEND_PLUGIN(Targets11)

TEST_CASE("OMS_TARGET_ABI_MINOR sets the descriptor's minor and the host it needs; rule_kinds is taken as declared") {
    const oms_plugin_descriptor* descriptor = nullptr;
    ErrorBuffer error;
    CHECK(oms_plugin_entry(1, 0, &descriptor, error.get()) == OMS_ERR_UNSUPPORTED);
    CHECK_THAT(error.message(), Catch::Contains("plugin needs oms ABI 1.1, host has 1.0"));
    REQUIRE(oms_plugin_entry(1, 1, &descriptor, error.get()) == OMS_OK);  // control: a 1.1 host
    CHECK(descriptor->abi_minor == 1);
    const auto* api = static_cast<const oms_backend_api*>(descriptor->interface);
    CHECK(api->rule_kinds == (oms::abi::rule_kinds_of_minor(1) & ~OMS_RULE_BIT(OMS_RULE_WRITE_SCRATCH_TREE)));
    CHECK(oms::abi::has_kind(api->rule_kinds, OMS_RULE_WRITE_DENY_NAME));
    CHECK_FALSE(oms::abi::has_kind(api->rule_kinds, OMS_RULE_WRITE_SCRATCH_TREE));
}
