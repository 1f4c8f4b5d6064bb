#include "policy_test_support.hpp"

#include <oms/sdk.hpp>

#include <dlfcn.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <stdexcept>

namespace oms::test {
namespace {

const char* kind_name(oms_rule_kind kind) {
    const char* name = oms::sdk::rule_kind_name(kind);
    return name ? name : "UNKNOWN";
}

}  // namespace

std::string rule(oms_rule_kind kind, const std::string& value, const std::string& origin, int64_t number) {
    return std::string(kind_name(kind)) + " " + value + " #" + std::to_string(number) + " | " + origin;
}

std::string describe(const OwnedRule& r) { return rule(r.kind, r.value, r.origin, r.number); }

LoadedPlugin::LoadedPlugin(const std::string& file) {
    handle_ = ::dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle_) throw std::runtime_error(std::string("dlopen failed: ") + ::dlerror());
    auto entry = reinterpret_cast<oms_plugin_entry_fn>(::dlsym(handle_, OMS_PLUGIN_ENTRY_SYMBOL));
    if (!entry) throw std::runtime_error("no oms_plugin_entry in " + file);
    ErrorBuffer error;
    if (entry(OMS_ABI_MAJOR, OMS_ABI_MINOR, &descriptor_, error.get()) != OMS_OK)
        throw std::runtime_error("entry failed: " + error.message());
}

LoadedPlugin::~LoadedPlugin() {
    if (handle_) ::dlclose(handle_);
}

Outcome LoadedPlugin::contribute(FakeHost& host, ContextBuilder& context) const {
    Outcome outcome;
    ErrorBuffer error;
    void* instance = nullptr;
    outcome.status = descriptor_->create(host.api(), &instance, error.get());
    if (outcome.status != OMS_OK) {
        outcome.error = error.message();
        return outcome;
    }
    const auto* api = static_cast<const oms_policy_api*>(descriptor_->interface);
    RuleCollector collector;
    outcome.status = api->contribute(instance, context.build(), collector.sink(), error.get());
    descriptor_->destroy(instance);
    outcome.error = error.message();
    outcome.raw = collector.rules;
    for (const OwnedRule& r : collector.rules) outcome.rules.push_back(describe(r));
    return outcome;
}

std::vector<std::string> LoadedPlugin::key_summary() const {
    std::vector<std::string> keys;
    for (size_t i = 0; i < descriptor_->config_key_count; ++i) {
        const oms_config_key& key = descriptor_->config_keys[i];
        keys.push_back(std::string(key.name) + ((key.flags & OMS_CONFIG_NARROWS) ? " (narrows)" : ""));
    }
    return keys;
}

void make_symlink(const std::string& target, const std::string& link) {
    std::filesystem::create_directories(std::filesystem::path(link).parent_path());
    std::filesystem::create_symlink(target, link);
}

void make_executable(const std::string& path, const std::string& content) {
    write_file(path, content);
    if (::chmod(path.c_str(), 0755) != 0) throw std::runtime_error("chmod failed for " + path);
}

}  // namespace oms::test
