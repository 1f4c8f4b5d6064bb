#include "loaded_plugin.hpp"

#include <dlfcn.h>
#include <stdexcept>

namespace oms::test::seatbelt {

LoadedPlugin::LoadedPlugin() {
    const char* build = std::getenv("OMS_BUILD_DIR");
    if (build == nullptr) throw std::runtime_error("OMS_BUILD_DIR is not set (run through ctest)");
    const std::string path = std::string(build) + "/lib/oms/plugins/oms-seatbelt.so";
    library_ = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (library_ == nullptr) throw std::runtime_error(std::string("dlopen: ") + ::dlerror());
    auto entry = reinterpret_cast<oms_plugin_entry_fn>(::dlsym(library_, OMS_PLUGIN_ENTRY_SYMBOL));
    if (entry == nullptr) throw std::runtime_error("no entry symbol in " + path);
    ErrorBuffer error;
    if (entry(OMS_ABI_MAJOR, OMS_ABI_MINOR, &descriptor_, error.get()) != OMS_OK)
        throw std::runtime_error("entry failed: " + error.message());
    if (descriptor_->create(host_.api(), &instance_, error.get()) != OMS_OK)
        throw std::runtime_error("create failed: " + error.message());
}

LoadedPlugin::~LoadedPlugin() {
    if (instance_ != nullptr) descriptor_->destroy(instance_);
    if (library_ != nullptr) ::dlclose(library_);
}

ScopedEnv::ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) {
        had_ = true;
        old_ = old;
    }
    if (value != nullptr) ::setenv(name, value, 1);
    else ::unsetenv(name);
}

ScopedEnv::~ScopedEnv() {
    if (had_) ::setenv(name_.c_str(), old_.c_str(), 1);
    else ::unsetenv(name_.c_str());
}

}  // namespace oms::test::seatbelt
