#include "oms/core/host_services.hpp"

#include <spdlog/spdlog.h>

namespace oms::core {

namespace {

// "[id] message": the plugin a line came from, unless the message names its
// config table already ("[plugin.id] key: ..."), which says as much.
std::string attributed(const std::string& id, const char* message) {
    const std::string text = message ? message : "";
    if (text.find("[plugin." + id + "]") != std::string::npos) return text;
    return "[" + id + "] " + text;
}

}  // namespace

struct HostServiceCalls {
    static HostServices& self(void* data) { return *static_cast<HostServices*>(data); }

    static void log(void* data, oms_log_level level, const char* message) {
        const std::string line = attributed(self(data).plugin_id_, message);
        switch (level) {
            case OMS_LOG_DEBUG: spdlog::debug("{}", line); break;
            case OMS_LOG_INFO: spdlog::info("{}", line); break;
            case OMS_LOG_WARN: spdlog::warn("{}", line); break;
            default: spdlog::error("{}", line); break;
        }
    }
    static oms_status string(void* data, const char* key, const char** out) {
        const ConfigValue* value = self(data).lookup(key, OMS_CONFIG_STRING);
        if (!value) return OMS_ERR_INVALID;
        *out = value->text.c_str();
        return OMS_OK;
    }
    static oms_status integer(void* data, const char* key, int64_t* out) {
        const ConfigValue* value = self(data).lookup(key, OMS_CONFIG_INTEGER);
        if (!value) return OMS_ERR_INVALID;
        *out = value->integer;
        return OMS_OK;
    }
    static oms_status boolean(void* data, const char* key, int32_t* out) {
        const ConfigValue* value = self(data).lookup(key, OMS_CONFIG_BOOLEAN);
        if (!value) return OMS_ERR_INVALID;
        *out = value->boolean ? 1 : 0;
        return OMS_OK;
    }
    static oms_status strings(void* data, const char* key, oms_strings* out) {
        HostServices& host = self(data);
        const ConfigValue* value = host.lookup(key, OMS_CONFIG_STRING_ARRAY);
        if (!value) return OMS_ERR_INVALID;
        std::lock_guard<std::mutex> lock(host.lists_mutex_);
        auto& views = host.string_lists_[key];
        if (views.size() != value->strings.size()) {
            views.clear();
            for (auto& s : value->strings) views.push_back(s.c_str());
        }
        *out = oms_strings{views.data(), views.size()};
        return OMS_OK;
    }
    static oms_status integers(void* data, const char* key, const int64_t** out, size_t* count) {
        const ConfigValue* value = self(data).lookup(key, OMS_CONFIG_INTEGER_ARRAY);
        if (!value) return OMS_ERR_INVALID;
        *out = value->integers.data();
        *count = value->integers.size();
        return OMS_OK;
    }
};

HostServices::HostServices(std::string plugin_id, const Config& config)
    : plugin_id_(std::move(plugin_id)), table_("plugin." + plugin_id_), config_(config) {
    api_.struct_size = sizeof(oms_host_api);
    api_.abi_major = OMS_ABI_MAJOR;
    api_.abi_minor = OMS_ABI_MINOR;
    api_.host_data = this;
    api_.log = &HostServiceCalls::log;
    api_.config_string = &HostServiceCalls::string;
    api_.config_integer = &HostServiceCalls::integer;
    api_.config_boolean = &HostServiceCalls::boolean;
    api_.config_strings = &HostServiceCalls::strings;
    api_.config_integers = &HostServiceCalls::integers;
}

const ConfigValue* HostServices::lookup(const char* key, oms_config_type type) const {
    if (key == nullptr) return nullptr;
    const ConfigValue* value = config_.get(table_, key);
    return value && value->type == type ? value : nullptr;
}

}  // namespace oms::core
