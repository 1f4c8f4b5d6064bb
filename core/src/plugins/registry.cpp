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

// A Loaded or Deferred record that claims `id` (nullptr: none). Loads nothing.
const PluginRecord* claimed(const std::deque<PluginRecord>& records, const std::string& id) {
    for (auto& record : records)
        if ((record.status == PluginStatus::Loaded || record.status == PluginStatus::Deferred) && record.id == id)
            return &record;
    return nullptr;
}

// The record of a backend file known-backends remembers as it is now, left
// unloaded; nullopt when it is not remembered so.
std::optional<PluginRecord> deferred_record(const std::string& file, const KnownBackends& remembered) {
    const auto identity = plugin_file_identity(file);
    if (!identity) return std::nullopt;
    const KnownBackend* known = remembered.find(file, *identity);
    if (!known) return std::nullopt;
    PluginRecord record;
    record.file = file;
    record.status = PluginStatus::Deferred;
    record.id = known->id;
    record.kind = OMS_KIND_BACKEND;
    record.identity = *identity;
    record.known = *known;
    return record;
}

KnownBackend known_of(const PluginRecord& record) {
    return KnownBackend{record.file, record.identity, record.id, record.strength(), record.platforms()};
}

}  // namespace

void Registry::load_from(const std::vector<std::string>& folders, const std::string& known_backends_file,
                         BackendLoading loading) {
    known_backends_file_ = known_backends_file;
    if (!known_backends_file.empty()) remembered_ = KnownBackends::read(known_backends_file);
    for (auto& folder : folders) {
        named_folders_.push_back(folder);
        std::error_code error;
        std::string canonical = fs::weakly_canonical(folder, error).string();
        if (std::find(folders_.begin(), folders_.end(), canonical) != folders_.end()) continue;
        folders_.push_back(canonical);
        for (auto& file : plugin_files(canonical)) {
            std::optional<PluginRecord> deferred;
            if (loading == BackendLoading::on_demand) deferred = deferred_record(file, remembered_);
            PluginRecord record = deferred ? std::move(*deferred) : load_plugin(file);
            const bool claims = record.status == PluginStatus::Loaded || record.status == PluginStatus::Deferred;
            const PluginRecord* first = claims ? claimed(records_, record.id) : nullptr;
            if (first && first->status == PluginStatus::Deferred) {
                // Two files claim one id: the remembered one loads to keep
                // it (a file that no longer loads leaves the id to this one).
                load_deferred(*first);
                first = claimed(records_, record.id);
            }
            if (first) record.reject("duplicate id '" + record.id + "': already loaded from " + first->file);
            records_.push_back(std::move(record));
        }
    }
}

void Registry::instantiate(const Config& config) {
    config_ = &config;
    for (auto& record : records_)
        if (record.status == PluginStatus::Loaded && !instances_.count(record.id)) instantiate_one(record);
    remember_backends();
}

void Registry::instantiate_one(PluginRecord& record) const {
    try {
        instances_[record.id] = std::make_unique<PluginInstance>(record, *config_);
    } catch (const UserError& e) {
        // A value of the user's config the plugin refuses is a config
        // error at its file and line: oms stops, and never passes to
        // another backend (auto would pick an unconfined one).
        throw_if_config_error(*config_, record.id, e.what());
        record.reject(e.what());
    }
}

bool Registry::load_deferred(const PluginRecord& target) const {
    for (auto& record : records_) {
        if (&record != &target) continue;
        if (record.status != PluginStatus::Deferred) return true;
        const KnownBackend remembered = *record.known;
        record = load_plugin(remembered.file);
        bool as_remembered = true;
        if (record.status == PluginStatus::Loaded) {
            if (record.id != remembered.id || !record.is_backend()) {
                // Another plugin behind an unchanged file: the duplicate-id
                // check was made with the remembered id, so it is not used.
                record.reject("its descriptor changed while its file did not (remembered as backend '" +
                              remembered.id + "')");
                as_remembered = false;
            } else {
                as_remembered =
                    record.strength() == remembered.strength && record.platforms() == remembered.platforms;
            }
        }
        if (record.status == PluginStatus::Loaded && config_) instantiate_one(record);
        if (config_) remember_backends();
        return as_remembered;
    }
    return true;
}

void Registry::load_all_deferred() const {
    for (auto& record : records_)
        if (record.status == PluginStatus::Deferred) load_deferred(record);
}

// Rewrites known-backends when what the registry now holds differs from it.
// Entries of files outside this registry (another build's plugins) are kept
// while their files are unchanged.
void Registry::remember_backends() const {
    if (known_backends_file_.empty()) return;
    KnownBackends now;
    std::vector<std::string> files;
    for (auto& record : records_) {
        files.push_back(record.file);
        if (record.is_backend() && (record.status == PluginStatus::Loaded || record.status == PluginStatus::Deferred))
            now.add(known_of(record));
    }
    KnownBackends mine;
    for (auto& entry : remembered_.entries())
        if (std::find(files.begin(), files.end(), entry.file) != files.end()) mine.add(entry);
    if (now == mine) return;
    for (auto& entry : remembered_.entries())
        if (std::find(files.begin(), files.end(), entry.file) == files.end() &&
            plugin_file_identity(entry.file) == entry.identity)
            now.add(entry);
    if (now.write(known_backends_file_)) remembered_ = now;
}

const PluginRecord* Registry::find(const std::string& id) const {
    for (auto& record : records_)
        if (record.status == PluginStatus::Deferred && record.id == id) load_deferred(record);
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
    if (std::string(kind) == OMS_KIND_BACKEND) load_all_deferred();
    std::vector<const PluginRecord*> out;
    for (auto& record : records_)
        if (record.status == PluginStatus::Loaded && record.kind == kind && instance(record.id)) out.push_back(&record);
    return out;
}

std::vector<const PluginRecord*> Registry::backends() const {
    std::vector<const PluginRecord*> out;
    for (auto& record : records_) {
        const bool usable = record.status == PluginStatus::Deferred ||
                            (record.status == PluginStatus::Loaded && instance(record.id));
        if (record.is_backend() && usable) out.push_back(&record);
    }
    return out;
}

}  // namespace oms::core
