// example-dotenv: a complete third-party policy plugin. It denies reading
// `.env` files (and any names the user adds) anywhere, by adding
// READ_DENY_SUFFIX rules that every backend enforces.
#include <oms/sdk.hpp>

namespace {

const oms_config_key kKeys[] = {
    {sizeof(oms_config_key), "extra_names", OMS_CONFIG_STRING_ARRAY, OMS_CONFIG_NARROWS,
     "more file names to deny, e.g. [\".env.local\"]"},
};

class DotenvPolicy final : public oms::sdk::PolicyPlugin {
public:
    static constexpr const char* id = "example-dotenv";
    static constexpr const char* version = "1.0.0";
    static constexpr const char* summary = "denies reading .env files";
    static const oms_config_key* config_keys() { return kKeys; }
    static size_t config_key_count() { return sizeof kKeys / sizeof kKeys[0]; }

    explicit DotenvPolicy(oms::sdk::Host host) : PolicyPlugin(host), names_{".env"} {
        for (auto& name : host.strings("extra_names")) names_.push_back(name);
    }

    void contribute(const oms::sdk::Context&, const oms::sdk::RuleSink& sink) override {
        for (auto& name : names_) sink.add(OMS_RULE_READ_DENY_SUFFIX, "/" + name, "example-dotenv: secrets file");
    }

private:
    std::vector<std::string> names_;
};

}  // namespace

OMS_EXPORT_POLICY_PLUGIN(DotenvPolicy)
