// The built oms-seatbelt.so, loaded through its one exported symbol exactly
// as the host loads it, with a FakeHost for its config.
#pragma once
#include "plugin_harness.hpp"

#include <oms/sdk.h>

#include <cstdlib>
#include <string>

namespace oms::test::seatbelt {

class LoadedPlugin {
public:
    LoadedPlugin();  // loads $OMS_BUILD_DIR/lib/oms/plugins/oms-seatbelt.so and creates an instance
    ~LoadedPlugin();
    LoadedPlugin(const LoadedPlugin&) = delete;
    LoadedPlugin& operator=(const LoadedPlugin&) = delete;

    const oms_plugin_descriptor& descriptor() const { return *descriptor_; }
    const oms_backend_api& api() const { return *static_cast<const oms_backend_api*>(descriptor_->interface); }
    void* instance() const { return instance_; }
    FakeHost& host() { return host_; }

private:
    void* library_ = nullptr;
    const oms_plugin_descriptor* descriptor_ = nullptr;
    void* instance_ = nullptr;
    FakeHost host_;
};

// Sets (or unsets, with nullptr) an environment variable for one scope.
class ScopedEnv {
public:
    ScopedEnv(const char* name, const char* value);
    ~ScopedEnv();
    ScopedEnv(const ScopedEnv&) = delete;
    ScopedEnv& operator=(const ScopedEnv&) = delete;

private:
    std::string name_;
    bool had_ = false;
    std::string old_;
};

}  // namespace oms::test::seatbelt
