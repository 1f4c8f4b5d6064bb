// Every plugin oms found, in search order, and the instances of those that
// loaded. Search order: the built-in folder, then config plugin_paths, then
// OMS_PLUGIN_PATH; the first plugin with an id wins, later ones are rejected.
#pragma once
#include "oms/core/plugin.hpp"

#include <deque>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace oms::core {

class Registry {
public:
    // Load every *.so in each folder (missing folders are skipped).
    void load_from(const std::vector<std::string>& folders);
    // Create an instance of every loaded plugin; a plugin whose create fails
    // is rejected with the reason.
    void instantiate(const Config& config);
    // The config the instances were made with (messages name its files).
    const Config* config() const { return config_; }

    const std::deque<PluginRecord>& records() const { return records_; }
    const std::vector<std::string>& folders() const { return folders_; }
    // The folders as they were named (absolute, links not resolved), in order.
    const std::vector<std::string>& named_folders() const { return named_folders_; }
    // The loaded plugin with this id and its instance, or nullptr.
    const PluginRecord* find(const std::string& id) const;
    // The record of any file that declared this id, loaded or rejected.
    const PluginRecord* find_any(const std::string& id) const;
    PluginInstance* instance(const std::string& id) const;
    std::vector<const PluginRecord*> loaded(const char* kind) const;

private:
    std::deque<PluginRecord> records_;  // deque: instances keep references to records
    std::vector<std::string> folders_;
    std::vector<std::string> named_folders_;
    std::map<std::string, std::unique_ptr<PluginInstance>> instances_;
    const Config* config_ = nullptr;
};

}  // namespace oms::core
