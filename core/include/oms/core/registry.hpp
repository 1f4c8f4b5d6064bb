// Every plugin oms found, in search order, and the instances of those that
// loaded. Search order: the built-in folder, then config plugin_paths, then
// OMS_PLUGIN_PATH; the first plugin with an id wins, later ones are rejected.
//
// With BackendLoading::on_demand, a backend file that known-backends
// remembers (same identity) is not loaded: its record is Deferred until
// something asks for it (find, loaded, load_deferred). Policies always load:
// every one of them contributes to every command.
#pragma once
#include "oms/core/known_backends.hpp"
#include "oms/core/plugin.hpp"

#include <deque>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace oms::core {

enum class BackendLoading { all, on_demand };

class Registry {
public:
    // Load every *.so in each folder (missing folders are skipped). With a
    // `known_backends_file`, what is remembered there is read (and defers
    // backends when `loading` is on_demand), and rewritten when what was
    // loaded says otherwise.
    void load_from(const std::vector<std::string>& folders, const std::string& known_backends_file = "",
                   BackendLoading loading = BackendLoading::all);
    // Create an instance of every loaded plugin; a plugin whose create fails
    // is rejected with the reason.
    void instantiate(const Config& config);
    // The config the instances were made with (messages name its files).
    const Config* config() const { return config_; }

    const std::deque<PluginRecord>& records() const { return records_; }
    const std::vector<std::string>& folders() const { return folders_; }
    // The folders as they were named (absolute, links not resolved), in order.
    const std::vector<std::string>& named_folders() const { return named_folders_; }
    // The loaded plugin with this id and its instance, or nullptr. A
    // deferred one is loaded first.
    const PluginRecord* find(const std::string& id) const;
    // The record of any file that declared this id, loaded, rejected or deferred.
    const PluginRecord* find_any(const std::string& id) const;
    PluginInstance* instance(const std::string& id) const;
    // The loaded plugins of a kind, every deferred one loaded first.
    std::vector<const PluginRecord*> loaded(const char* kind) const;
    // Loaded and deferred backends, unloaded: what auto ranks.
    std::vector<const PluginRecord*> backends() const;

    // Loads a deferred record (once instantiate has run) and makes its
    // instance; it becomes Loaded, or Rejected with the reason. False when
    // its descriptor declares another id, strength or platforms than was
    // remembered: a ranking made from the memory was wrong.
    bool load_deferred(const PluginRecord& record) const;
    void load_all_deferred() const;

private:
    void instantiate_one(PluginRecord& record) const;
    void remember_backends() const;

    // mutable: loading a deferred backend on demand changes what the
    // registry holds, not what it answers (the same plugins, loaded later).
    mutable std::deque<PluginRecord> records_;  // deque: instances keep references to records
    std::vector<std::string> folders_;
    std::vector<std::string> named_folders_;
    mutable std::map<std::string, std::unique_ptr<PluginInstance>> instances_;
    const Config* config_ = nullptr;
    std::string known_backends_file_;
    mutable KnownBackends remembered_;  // as read, then as last written
};

}  // namespace oms::core
