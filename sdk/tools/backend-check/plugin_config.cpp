#include "plugin_config.hpp"

#include "loaded_backend.hpp"

#include <cerrno>
#include <cstdlib>

namespace oms::backend_check {
namespace {

const oms_config_key* declared(const oms_plugin_descriptor& descriptor, const std::string& name) {
    if (descriptor.config_key_count == 0 || !descriptor.config_keys) return nullptr;
    // Stepped with the first element's size (the ABI's rule for arrays of structs).
    const size_t stride = descriptor.config_keys[0].struct_size;
    const char* bytes = reinterpret_cast<const char*>(descriptor.config_keys);
    for (size_t i = 0; i < descriptor.config_key_count; ++i) {
        auto key = reinterpret_cast<const oms_config_key*>(bytes + i * stride);
        if (key->name && name == key->name) return key;
    }
    return nullptr;
}

std::vector<std::string> split(const std::string& text) {
    std::vector<std::string> parts;
    size_t start = 0;
    while (!text.empty() && start <= text.size()) {
        size_t end = text.find(',', start);
        if (end == std::string::npos) end = text.size();
        parts.push_back(text.substr(start, end - start));
        start = end + 1;
    }
    return parts;
}

bool to_integer(const std::string& text, int64_t& out) {
    if (text.empty()) return false;
    char* end = nullptr;
    errno = 0;
    long long value = std::strtoll(text.c_str(), &end, 10);
    if (errno != 0 || *end != '\0') return false;
    out = value;
    return true;
}

}  // namespace

struct ConfigServices {
    static PluginConfig& self(void* data) { return *static_cast<PluginConfig*>(data); }
    template <class Map, class Value>
    static oms_status find(const Map& map, const char* key, Value& out) {
        auto it = map.find(key);
        if (it == map.end()) return OMS_ERR_INVALID;
        out = it->second;
        return OMS_OK;
    }
    static oms_status string(void* data, const char* key, const char** out) {
        auto& map = self(data).strings_;
        auto it = map.find(key);
        if (it == map.end()) return OMS_ERR_INVALID;
        *out = it->second.c_str();
        return OMS_OK;
    }
    static oms_status integer(void* data, const char* key, int64_t* out) { return find(self(data).integers_, key, *out); }
    static oms_status boolean(void* data, const char* key, int32_t* out) {
        bool value = false;
        oms_status status = find(self(data).booleans_, key, value);
        if (status == OMS_OK) *out = value ? 1 : 0;
        return status;
    }
    static oms_status strings(void* data, const char* key, oms_strings* out) {
        auto& views = self(data).string_array_views_;
        auto it = views.find(key);
        if (it == views.end()) return OMS_ERR_INVALID;
        *out = {it->second.empty() ? nullptr : it->second.data(), it->second.size()};
        return OMS_OK;
    }
    static oms_status integers(void* data, const char* key, const int64_t** out, size_t* count) {
        auto& map = self(data).integer_arrays_;
        auto it = map.find(key);
        if (it == map.end()) return OMS_ERR_INVALID;
        *out = it->second.data();
        *count = it->second.size();
        return OMS_OK;
    }
};

void PluginConfig::load(const std::vector<std::string>& items, const oms_plugin_descriptor& descriptor) {
    for (auto& item : items) {
        auto equals = item.find('=');
        if (equals == std::string::npos) throw LoadError{"--config " + item + ": write key=value"};
        const std::string name = item.substr(0, equals), value = item.substr(equals + 1);
        const oms_config_key* key = declared(descriptor, name);
        if (!key) throw LoadError{"--config " + name + ": the plugin declares no such key"};
        auto wrong = [&](const char* wanted) { return LoadError{"--config " + name + ": wanted " + wanted + ", got \"" + value + "\""}; };
        switch (key->type) {
        case OMS_CONFIG_STRING: strings_[name] = value; break;
        case OMS_CONFIG_INTEGER:
            if (!to_integer(value, integers_[name])) throw wrong("an integer");
            break;
        case OMS_CONFIG_BOOLEAN:
            if (value != "true" && value != "false") throw wrong("true or false");
            booleans_[name] = value == "true";
            break;
        case OMS_CONFIG_STRING_ARRAY:
            string_arrays_[name] = split(value);
            break;
        case OMS_CONFIG_INTEGER_ARRAY:
            for (auto& part : split(value)) {
                int64_t number = 0;
                if (!to_integer(part, number)) throw wrong("comma-separated integers");
                integer_arrays_[name].push_back(number);
            }
            break;
        default: throw LoadError{"--config " + name + ": the plugin declares an unknown type"};
        }
    }
    for (auto& [name, values] : string_arrays_)
        for (auto& v : values) string_array_views_[name].push_back(v.c_str());
}

void PluginConfig::serve(oms_host_api& host) {
    host.host_data = this;
    host.config_string = &ConfigServices::string;
    host.config_integer = &ConfigServices::integer;
    host.config_boolean = &ConfigServices::boolean;
    host.config_strings = &ConfigServices::strings;
    host.config_integers = &ConfigServices::integers;
}

}  // namespace oms::backend_check
