// One plugin file as the loader found it: its descriptor when it loaded, or
// the reason it was rejected. Instances keep their library loaded.
#pragma once
#include "oms/core/config.hpp"
#include "oms/core/known_backends.hpp"

#include <oms/sdk.h>

#include <memory>
#include <optional>
#include <string>

namespace boost::dll {
class shared_library;
}

namespace oms::core {

class HostServices;

// Deferred: a backend file known-backends remembers, not loaded yet (see
// Registry); it has an id, a kind and `known`, and no descriptor.
enum class PluginStatus { Loaded, Rejected, Deferred };

struct PluginRecord {
    std::string file;
    PluginStatus status = PluginStatus::Rejected;
    std::string reason;  // why it was rejected
    std::string id, kind, version, summary;
    uint16_t abi_major = 0, abi_minor = 0;  // abi_minor: the minor the plugin targets
    // A backend's capabilities: the rule kinds it handles (OMS_RULE_BIT bits)
    // and the run flags it understands, declared or its target minor's.
    uint64_t rule_kinds = 0;
    bool rule_kinds_declared = false;
    uint32_t run_flags = 0;
    Schema schema;  // its declared [plugin.<id>] keys
    const oms_plugin_descriptor* descriptor = nullptr;
    std::shared_ptr<boost::dll::shared_library> library;
    PluginFileIdentity identity;       // of the file as it was checked and loaded
    std::optional<KnownBackend> known;  // a Deferred record's remembered strength and platforms

    // A backend's rank and platforms: its descriptor's, or for a Deferred
    // record what known-backends remembers.
    uint32_t strength() const { return status == PluginStatus::Deferred ? known->strength : backend()->strength; }
    std::string platforms() const {
        if (status == PluginStatus::Deferred) return known->platforms;
        return backend()->platforms ? backend()->platforms : "";
    }
    bool is_backend() const { return kind == OMS_KIND_BACKEND; }
    bool is_policy() const { return kind == OMS_KIND_POLICY; }
    const oms_backend_api* backend() const { return backend_of(descriptor); }
    const oms_policy_api* policy() const { return policy_of(descriptor); }
    static const oms_backend_api* backend_of(const oms_plugin_descriptor* d) {
        return static_cast<const oms_backend_api*>(d->interface);
    }
    static const oms_policy_api* policy_of(const oms_plugin_descriptor* d) {
        return static_cast<const oms_policy_api*>(d->interface);
    }
    bool unloadable = false;  // rejected before or by the dynamic loader: nothing of it was read
    void reject(std::string why) {
        status = PluginStatus::Rejected;
        reason = std::move(why);
    }
    void reject_unloadable(const std::string& why) {
        reject("cannot load: " + why);
        unloadable = true;
    }
};

// A live instance made by the plugin's create(); destroyed before its library unloads.
class PluginInstance {
public:
    PluginInstance(const PluginRecord& record, const Config& config);  // throws UserError on failure
    ~PluginInstance();
    PluginInstance(const PluginInstance&) = delete;
    PluginInstance& operator=(const PluginInstance&) = delete;
    void* handle() const { return instance_; }
    const PluginRecord& record() const { return record_; }

private:
    const PluginRecord& record_;
    std::shared_ptr<boost::dll::shared_library> library_;  // declared first: destroyed last
    std::unique_ptr<HostServices> host_;
    void* instance_ = nullptr;
};

// Load one file: never throws; a bad plugin comes back Rejected with the reason.
PluginRecord load_plugin(const std::string& file);

}  // namespace oms::core
