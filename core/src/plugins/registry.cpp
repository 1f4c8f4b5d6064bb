#include "oms/core/registry.hpp"

#include "oms/core/config_error_location.hpp"
#include "oms/core/error.hpp"

#include <algorithm>
#include <filesystem>

namespace fs = std::filesystem;

namespace oms::core {

namespace {

// Every *.so entry, whatever its type: one that is not a regular file is
// listed as rejected with the reason rather than passed over in silence.
std::vector<std::string> plugin_files(const std::string& folder) {
    std::vector<std::string> files;
    std::error_code error;
    for (auto& entry : fs::directory_iterator(folder, error)) {
        if (entry.path().extension() == ".so") files.push_back(entry.path().string());
    }
    std::sort(files.begin(), files.end());
    return files;
}

}  // namespace

void Registry::load_from(const std::vector<std::string>& folders) {
    for (auto& folder : folders) {
        named_folders_.push_back(folder);
        std::error_code error;
        std::string canonical = fs::weakly_canonical(folder, error).string();
        if (std::find(folders_.begin(), folders_.end(), canonical) != folders_.end()) continue;
        folders_.push_back(canonical);
        for (auto& file : plugin_files(canonical)) {
            PluginRecord record = load_plugin(file);
            const PluginRecord* first = record.status == PluginStatus::Loaded ? find(record.id) : nullptr;
            if (first) record.reject("duplicate id '" + record.id + "': already loaded from " + first->file);
            records_.push_back(std::move(record));
        }
    }
}

void Registry::instantiate(const Config& config) {
    config_ = &config;
    for (auto& record : records_) {
        if (record.status != PluginStatus::Loaded || instances_.count(record.id)) continue;
        try {
            instances_[record.id] = std::make_unique<PluginInstance>(record, config);
        } catch (const UserError& e) {
            // A value of the user's config the plugin refuses is a config
            // error at its file and line: oms stops, and never passes to
            // another backend (auto would pick an unconfined one).
            throw_if_config_error(config, record.id, e.what());
            record.reject(e.what());
        }
    }
}

const PluginRecord* Registry::find(const std::string& id) const {
    for (auto& record : records_)
        if (record.status == PluginStatus::Loaded && record.id == id) return &record;
    return nullptr;
}

const PluginRecord* Registry::find_any(const std::string& id) const {
    if (const PluginRecord* loaded = find(id)) return loaded;
    for (auto& record : records_)
        if (record.id == id) return &record;
    return nullptr;
}

PluginInstance* Registry::instance(const std::string& id) const {
    auto it = instances_.find(id);
    return it == instances_.end() ? nullptr : it->second.get();
}

std::vector<const PluginRecord*> Registry::loaded(const char* kind) const {
    std::vector<const PluginRecord*> out;
    for (auto& record : records_)
        if (record.status == PluginStatus::Loaded && record.kind == kind && instance(record.id)) out.push_back(&record);
    return out;
}

}  // namespace oms::core
