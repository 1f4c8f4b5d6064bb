#include "oms/core/plugin.hpp"

#include "oms/core/error.hpp"
#include "oms/core/host_services.hpp"
#include "oms/core/plugin_file_check.hpp"

#include <boost/dll/shared_library.hpp>
#include <oms/abi_history.hpp>

#include <cstddef>
#include <cstdio>
#include <vector>

namespace oms::core {

namespace {

// The smallest descriptor an ABI 1.0 plugin may hand over: up to `interface`.
constexpr size_t kMinimumDescriptorSize = abi::kDescriptorSize_1_0;
constexpr size_t kMaximumDescriptorSize = 64 * 1024;

// [a-z0-9][a-z0-9-]{0,63}, checked by hand: compiling a std::regex costs more
// than loading a plugin, and this runs for every plugin on every command.
bool valid_id(const char* id) {
    if (!id || !*id || *id == '-') return false;
    size_t length = 0;
    for (const char* c = id; *c; ++c, ++length) {
        bool ok = (*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || *c == '-';
        if (!ok || length >= 64) return false;
    }
    return true;
}

std::string abi_text(unsigned major, unsigned minor) { return std::to_string(major) + "." + std::to_string(minor); }

// Each check returns an empty string when the descriptor passes it.
std::string check_descriptor(const oms_plugin_descriptor& d) {
    if (d.struct_size < kMinimumDescriptorSize || d.struct_size > kMaximumDescriptorSize)
        return "descriptor has a bad size: " + std::to_string(d.struct_size) + " bytes (ABI 1.0 needs at least " +
               std::to_string(kMinimumDescriptorSize) + ")";
    const std::string host = abi_text(OMS_ABI_MAJOR, OMS_ABI_MINOR);
    if (d.abi_major != OMS_ABI_MAJOR)
        return "built for plugin ABI " + abi_text(d.abi_major, d.abi_minor) + ", this oms hosts ABI " + host +
               " (major versions differ)";
    if (d.abi_minor > OMS_ABI_MINOR)
        return "built for plugin ABI " + abi_text(d.abi_major, d.abi_minor) + ", newer than this oms (ABI " + host +
               ")";
    if (!valid_id(d.id))
        return "descriptor has an invalid id (want [a-z0-9-]+)";
    if (!d.kind || (std::string(d.kind) != OMS_KIND_BACKEND && std::string(d.kind) != OMS_KIND_POLICY))
        return std::string("unknown interface kind '") + (d.kind ? d.kind : "(null)") + "'";
    if (!d.create || !d.destroy || !d.interface) return "descriptor lacks create, destroy or its interface";
    return {};
}

std::string hex(uint64_t bits) {
    char text[32];
    std::snprintf(text, sizeof text, "0x%llx", static_cast<unsigned long long>(bits));
    return text;
}

// Bits a plugin set that its target minor does not define: it would expect
// a meaning this host may not give them (the FLAGS rule of sdk.h).
std::string unknown_bits(const char* what, uint64_t bits, uint64_t defined, unsigned minor) {
    if ((bits & ~defined) == 0) return {};
    return std::string(what) + " hold bits " + hex(bits & ~defined) + " that ABI 1." + std::to_string(minor) +
           " does not define";
}

std::string check_backend(const oms_backend_api& api, unsigned minor) {
    if (api.struct_size < abi::kBackendApiSize_1_0)
        return "backend interface has a bad size: " + std::to_string(api.struct_size) + " bytes (ABI 1.0 needs at least " +
               std::to_string(abi::kBackendApiSize_1_0) + ")";
    if (!api.probe || !api.render || !api.spawn || !api.signal || !api.wait || !api.release)
        return "backend interface lacks probe, render, spawn, signal, wait or release";
    std::string problem = unknown_bits("backend flags", api.flags, abi::backend_flags_of_minor(minor), minor);
    if (problem.empty() && OMS_ABI_HAS_FIELD(api.struct_size, oms_backend_api, rule_kinds))
        problem = unknown_bits("declared rule kinds", api.rule_kinds, abi::rule_kinds_of_minor(minor), minor);
    if (problem.empty() && OMS_ABI_HAS_FIELD(api.struct_size, oms_backend_api, run_flags))
        problem = unknown_bits("declared run flags", api.run_flags, abi::run_flags_of_minor(minor), minor);
    return problem;
}

// What the backend handles: its declaration, or the frozen sets of the
// minor it targets when its interface predates the declaration.
void fill_capabilities(PluginRecord& record, const oms_backend_api& api) {
    const bool declares_kinds = OMS_ABI_HAS_FIELD(api.struct_size, oms_backend_api, rule_kinds);
    const bool declares_flags = OMS_ABI_HAS_FIELD(api.struct_size, oms_backend_api, run_flags);
    record.rule_kinds_declared = declares_kinds;
    record.rule_kinds = declares_kinds ? api.rule_kinds : abi::rule_kinds_of_minor(record.abi_minor);
    record.run_flags = declares_flags ? api.run_flags : abi::run_flags_of_minor(record.abi_minor);
}

std::string check_policy(const oms_policy_api& api) {
    if (api.struct_size < abi::kPolicyApiSize_1_0 || !api.contribute)
        return "policy interface has a bad size or no contribute function";
    return {};
}

std::string read_schema(const oms_plugin_descriptor& d, Schema& schema) {
    if (d.config_key_count > 0 && !d.config_keys) return "config_key_count is set but config_keys is NULL";
    if (d.config_key_count == 0) return {};
    // The plugin's element size is the stride (see SIZES in sdk.h).
    const size_t stride = d.config_keys[0].struct_size;
    if (stride < abi::kConfigKeySize_1_0) return "config keys are smaller than ABI 1.0's";
    const char* base = reinterpret_cast<const char*>(d.config_keys);
    for (size_t i = 0; i < d.config_key_count; ++i) {
        const oms_config_key& key = *reinterpret_cast<const oms_config_key*>(base + i * stride);
        if (key.struct_size != stride || !key.name || key.type < OMS_CONFIG_STRING ||
            key.type > OMS_CONFIG_INTEGER_ARRAY)
            return "config key #" + std::to_string(i) + " is malformed";
        if (key.flags & ~uint32_t{OMS_CONFIG_FLAGS_1_0})
            return "config key '" + std::string(key.name) + "': " +
                   unknown_bits("its flags", key.flags, OMS_CONFIG_FLAGS_1_0, d.abi_minor);
        schema[key.name] = KeySpec{key.type, (key.flags & OMS_CONFIG_NARROWS) != 0,
                                   key.description ? key.description : ""};
    }
    return {};
}

void fill_from_descriptor(PluginRecord& record, const oms_plugin_descriptor& d) {
    record.abi_major = d.abi_major;
    record.abi_minor = d.abi_minor;
    if (d.struct_size < kMinimumDescriptorSize) return;  // fields beyond the size are not ours to read
    record.id = d.id ? d.id : "";
    record.kind = d.kind ? d.kind : "";
    record.version = d.version ? d.version : "";
    record.summary = d.summary ? d.summary : "";
}

const oms_plugin_descriptor* call_entry(oms_plugin_entry_fn entry, PluginRecord& record) {
    char message[1024] = {0};
    oms_error error{message, sizeof message};
    const oms_plugin_descriptor* descriptor = nullptr;
    oms_status status = OMS_ERR_INTERNAL;
    try {
        status = entry(OMS_ABI_MAJOR, OMS_ABI_MINOR, &descriptor, &error);
    } catch (const std::exception& e) {
        record.reject(std::string("entry threw an exception: ") + e.what());
        return nullptr;
    } catch (...) {
        record.reject("entry threw an exception");
        return nullptr;
    }
    if (status != OMS_OK) {
        record.reject("entry failed (status " + std::to_string(status) + ")" + (message[0] ? ": " : "") + message);
        return nullptr;
    }
    if (!descriptor) record.reject("entry returned no descriptor");
    return descriptor;
}

// Loaded libraries stay mapped until the process exits: unloading nine of
// them at exit cost about 0.9 ms per command (measured) and bought nothing.
void keep_until_exit(const std::shared_ptr<boost::dll::shared_library>& library) {
    static auto* kept = new std::vector<std::shared_ptr<boost::dll::shared_library>>();  // never destroyed
    kept->push_back(library);
}

}  // namespace

PluginRecord load_plugin(const std::string& file) {
    PluginRecord record;
    record.file = file;
    // Loaded by its name, not through /proc/self/fd of the descriptor checked:
    // plugins find the programs beside them by their own file name (dladdr),
    // and a file cut short while it is loaded is the same inode either way.
    const PluginFileCheck checked = check_plugin_file(file);
    if (checked.problem) {
        record.reject_unloadable(*checked.problem);
        return record;
    }
    auto library = std::make_shared<boost::dll::shared_library>();
    boost::system::error_code error;
    library->load(file, boost::dll::load_mode::rtld_local | boost::dll::load_mode::rtld_now, error);
    if (error) {
        record.reject_unloadable(error.message());
        return record;
    }
    keep_until_exit(library);
    if (plugin_file_identity(file) != checked.identity) {
        record.reject_unloadable("the file changed while it was loaded (is it being written?)");
        return record;
    }
    if (!library->has(OMS_PLUGIN_ENTRY_SYMBOL)) {
        record.reject(std::string("no entry symbol '") + OMS_PLUGIN_ENTRY_SYMBOL + "'");
        return record;
    }
    auto entry = library->get<std::remove_pointer_t<oms_plugin_entry_fn>>(OMS_PLUGIN_ENTRY_SYMBOL);
    const oms_plugin_descriptor* d = call_entry(entry, record);
    if (!d) return record;
    fill_from_descriptor(record, *d);
    std::string problem = check_descriptor(*d);
    if (problem.empty() && record.is_backend()) problem = check_backend(*record.backend_of(d), d->abi_minor);
    if (problem.empty() && record.is_policy()) problem = check_policy(*record.policy_of(d));
    if (problem.empty()) problem = read_schema(*d, record.schema);
    if (!problem.empty()) {
        record.reject(problem);
        return record;
    }
    if (record.is_backend()) fill_capabilities(record, *record.backend_of(d));
    record.descriptor = d;
    record.library = library;
    record.identity = checked.identity;
    record.status = PluginStatus::Loaded;
    return record;
}

PluginInstance::PluginInstance(const PluginRecord& record, const Config& config)
    : record_(record), library_(record.library), host_(std::make_unique<HostServices>(record.id, config)) {
    char message[1024] = {0};
    oms_error error{message, sizeof message};
    oms_status status = OMS_ERR_INTERNAL;
    try {
        status = record.descriptor->create(host_->api(), &instance_, &error);
    } catch (...) {
        std::snprintf(message, sizeof message, "create threw an exception");
    }
    if (status != OMS_OK || instance_ == nullptr)
        throw UserError(kExitUnavailable, std::string("create failed: ") + (message[0] ? message : "no reason given"));
}

PluginInstance::~PluginInstance() {
    if (instance_) record_.descriptor->destroy(instance_);
}

}  // namespace oms::core
