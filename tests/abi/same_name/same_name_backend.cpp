// The same plugin class name in two plugins, built the plain way (default
// visibility, no symbol list): sdk.hpp's template statics must stay inside
// each library. Exported, the descriptor's static would be one
// STB_GNU_UNIQUE object for both, and the second plugin's entry would hand
// over the first one's descriptor.
#include <oms/sdk.hpp>

class Backend final : public oms::sdk::BackendPlugin {
public:
    static constexpr const char* id = PLUGIN_ID;
    static constexpr const char* version = "1.0.0";
    static constexpr const char* summary = "one of two plugins with the same class name";
    static constexpr uint32_t flags = OMS_BACKEND_CONFINES;
    static constexpr uint32_t strength = 1;
    static constexpr const char* platforms = "linux";
    static const oms_config_key* config_keys() { return nullptr; }
    static size_t config_key_count() { return 0; }
    using BackendPlugin::BackendPlugin;
    void probe(const oms::sdk::Report&) override {}
    void render(const oms::sdk::Context&, const oms::sdk::Policy&, const oms::sdk::Report&) override {}
    std::unique_ptr<oms::sdk::Run> spawn(const oms::sdk::Context&, const oms::sdk::Policy&, oms_stdio) override {
        throw oms::sdk::Error(OMS_ERR_FAILED, "never runs");
    }
};

OMS_EXPORT_BACKEND_PLUGIN(Backend)
