#include "oms/core/config.hpp"

#include "oms/core/config_file_reader.hpp"
#include "oms/core/error.hpp"
#include "oms/core/guarantees.hpp"

#include <oms/toml_text.hpp>

#include <filesystem>
#include <cstdio>
#include <sstream>
#include <toml++/toml.h>

namespace oms::core {

namespace {

const char* layer_name(ConfigLayer layer) {
    switch (layer) {
        case ConfigLayer::Defaults: return "defaults";
        case ConfigLayer::User: return "user";
        case ConfigLayer::Worktree: return "worktree";
    }
    return "?";
}

[[noreturn]] void config_error(const std::string& file, int64_t line, const std::string& key,
                               const std::string& what) {
    std::ostringstream message;
    message << "config error: " << file;
    if (line > 0) message << ":" << line;
    if (!key.empty()) message << ": key '" << key << "'";
    message << ": " << what;
    throw UserError(kExitConfig, message.str());
}

int64_t line_of(const toml::node& node) { return static_cast<int64_t>(node.source().begin.line); }

// [sandbox] require names guarantees (guarantees.hpp): a misspelt one would
// otherwise ask for nothing, so it is an error at its own line.
void check_guarantee_names(const std::string& file, const toml::node& node, const std::string& key) {
    const toml::array* names = node.as_array();
    for (size_t i = 0; names && i < names->size(); ++i) {
        const toml::node& element = *names->get(i);
        const std::string name = element.value_or(std::string());
        if (!is_guarantee_name(name))
            config_error(file, line_of(element), key,
                         "unknown guarantee '" + name + "' (known: " + guarantee_names_text() + ")");
    }
}

// The sub-table at a dotted path ("plugin.docker"), or nullptr.
const toml::table* find_table(const toml::table& root, const std::string& dotted) {
    const toml::table* current = &root;
    std::string rest = dotted;
    while (current) {
        auto dot = rest.find('.');
        std::string head = rest.substr(0, dot);
        const toml::node* next = current->get(head);
        if (!next) return nullptr;
        current = next->as_table();
        if (dot == std::string::npos) return current;
        rest = rest.substr(dot + 1);
    }
    return nullptr;
}

template <class T>
bool array_of(const toml::array& array) {
    for (auto& element : array)
        if (!element.is<T>()) return false;
    return true;
}

bool has_type(const toml::node& node, oms_config_type type) {
    switch (type) {
        // A number is accepted where a string is declared (cpus = 2 as well
        // as cpus = "2"): it reaches the plugin as its decimal text.
        case OMS_CONFIG_STRING: return node.is_string() || node.is_integer() || node.is_floating_point();
        case OMS_CONFIG_INTEGER: return node.is_integer();
        case OMS_CONFIG_BOOLEAN: return node.is_boolean();
        case OMS_CONFIG_STRING_ARRAY: return node.is_array() && array_of<std::string>(*node.as_array());
        case OMS_CONFIG_INTEGER_ARRAY: return node.is_array() && array_of<int64_t>(*node.as_array());
    }
    return false;
}

std::string string_or_number_text(const toml::node& node) {
    if (const auto* integer = node.as_integer()) return std::to_string(integer->get());
    if (const auto* number = node.as_floating_point()) {
        char text[64];
        std::snprintf(text, sizeof text, "%.15g", number->get());
        return text;
    }
    return node.value<std::string>().value_or("");
}

// Read a node known to be of `type` into `value`; appends arrays when asked.
void assign(ConfigValue& value, const toml::node& node, oms_config_type type, bool append) {
    value.type = type;
    switch (type) {
        case OMS_CONFIG_STRING: value.text = string_or_number_text(node); break;
        case OMS_CONFIG_INTEGER: value.integer = node.value<int64_t>().value_or(0); break;
        case OMS_CONFIG_BOOLEAN: value.boolean = node.value<bool>().value_or(false); break;
        case OMS_CONFIG_STRING_ARRAY:
            if (!append) value.strings.clear();
            for (auto& element : *node.as_array()) value.strings.push_back(element.value<std::string>().value_or(""));
            break;
        case OMS_CONFIG_INTEGER_ARRAY:
            if (!append) value.integers.clear();
            for (auto& element : *node.as_array()) value.integers.push_back(element.value<int64_t>().value_or(0));
            break;
    }
}

std::string known_keys(const Schema& schema) {
    std::string out;
    for (auto& [name, spec] : schema) out += (out.empty() ? "" : ", ") + name;
    return out.empty() ? "none" : out;
}

// Every dotted table path that holds at least one non-table value, plus every leaf table.
void collect_tables(const toml::table& table, const std::string& prefix,
                    std::vector<std::pair<std::string, int64_t>>& out) {
    bool has_values = false;
    for (auto& [key, node] : table) {
        std::string name = prefix.empty() ? std::string(key.str()) : prefix + "." + std::string(key.str());
        if (const toml::table* child = node.as_table())
            collect_tables(*child, name, out);
        else
            has_values = true;
    }
    if (!prefix.empty() && (has_values || table.empty())) out.emplace_back(prefix, line_of(table));
}

}  // namespace

struct Config::ParsedFile {
    std::string path;
    ConfigLayer layer;
    toml::table root;
};

Config::Config() = default;
Config::~Config() = default;
Config::Config(Config&&) noexcept = default;
Config& Config::operator=(Config&&) noexcept = default;

const char* type_name(oms_config_type type) {
    switch (type) {
        case OMS_CONFIG_STRING: return "string";
        case OMS_CONFIG_INTEGER: return "integer";
        case OMS_CONFIG_BOOLEAN: return "boolean";
        case OMS_CONFIG_STRING_ARRAY: return "array of strings";
        case OMS_CONFIG_INTEGER_ARRAY: return "array of integers";
    }
    return "unknown type";
}

const Schema& core_schema() {
    static const Schema schema = {
        {"backend", {OMS_CONFIG_STRING, false, "backend id to use, or \"auto\" for the strongest usable one"}},
        {"best_effort", {OMS_CONFIG_BOOLEAN, false, "run even when the backend cannot enforce every rule"}},
        {"read_only", {OMS_CONFIG_STRING_ARRAY, false, "extra folders the command may read (read-only mounts)"}},
        {"read_write", {OMS_CONFIG_STRING_ARRAY, false, "extra folders the command may write (read-write mounts)"}},
        {"pinned", {OMS_CONFIG_STRING_ARRAY, true, "pinned verifier files the command may never write"}},
        {"surfpool", {OMS_CONFIG_STRING, false, "path of the trusted Surfpool binary (host session)"}},
        {"plugin_paths", {OMS_CONFIG_STRING_ARRAY, false, "extra folders searched for plugins"}},
        {"failure_hint", {OMS_CONFIG_BOOLEAN, false, "after a failed command, one stderr line on asking oms explain"}},
        {"require", {OMS_CONFIG_STRING_ARRAY, true, "guarantees a backend must give here, or the run is refused ("
                                                    "file-rules, private-network, private-tmp, process-isolation)"}},
    };
    return schema;
}

void Config::add_file(const std::string& path, ConfigLayer layer) {
    const ConfigFileText read = read_config_file(path, layer == ConfigLayer::Worktree);
    if (!read.found) return;
    if (read.problem) config_error(path, 0, "", "cannot be used as a config file: " + *read.problem);
    auto file = std::make_unique<ParsedFile>();
    file->path = path;
    file->layer = layer;
    if (const auto flaw = sdk::toml_text::unsafe_character(read.text))
        config_error(path, static_cast<int64_t>(flaw->line), "", "malformed TOML: " + flaw->what);
    try {
        file->root = toml::parse(read.text, path);
    } catch (const toml::parse_error& e) {
        config_error(path, static_cast<int64_t>(e.source().begin.line), "",
                     "malformed TOML: " + std::string(e.description()));
    }
    files_.push_back(std::move(file));
}

void Config::resolve(const std::string& table_name, const Schema& schema) {
    auto& merged = values_[table_name];
    for (auto& file : files_) {
        const toml::table* table = find_table(file->root, table_name);
        if (!table) continue;
        for (auto& [key_node, node] : *table) {
            std::string key(key_node.str());
            std::string dotted = table_name + "." + key;
            if (node.is_table()) continue;  // a sub-table is checked by check_tables
            auto spec = schema.find(key);
            if (spec == schema.end())
                config_error(file->path, line_of(node), dotted, "unknown key (known keys: " + known_keys(schema) + ")");
            if (!has_type(node, spec->second.type))
                config_error(file->path, line_of(node), dotted,
                             std::string("expected ") + type_name(spec->second.type));
            if (dotted == "sandbox.require") check_guarantee_names(file->path, node, dotted);
            bool from_worktree = file->layer == ConfigLayer::Worktree;
            if (from_worktree && !spec->second.narrows)
                config_error(file->path, line_of(node), dotted,
                             "refused: a worktree's config may only narrow the policy, and this key could "
                             "widen it; set it in " + std::string("your user config instead"));
            ConfigValue& value = merged[key];
            assign(value, node, spec->second.type, from_worktree);
            value.where = file->path + ":" + std::to_string(line_of(node));
        }
    }
}

void Config::resolve_string_map(const std::string& table_name, const std::string& key) {
    const std::string dotted = table_name + "." + key;
    auto& merged = string_maps_[dotted];
    for (auto& file : files_) {
        const toml::table* table = find_table(file->root, table_name);
        const toml::node* node = table ? table->get(key) : nullptr;
        if (!node) continue;
        const toml::table* entries = node->as_table();
        if (!entries) config_error(file->path, line_of(*node), dotted, "expected a table of strings");
        if (file->layer == ConfigLayer::Worktree)
            config_error(file->path, line_of(*node), dotted,
                         "refused: a worktree's config may only narrow the policy, and this key could widen it; "
                         "set it in your user config instead");
        for (auto& [name, entry] : *entries) {
            if (!entry.is_string())
                config_error(file->path, line_of(entry), dotted + "." + std::string(name.str()), "expected string");
            ConfigValue& value = merged[std::string(name.str())];
            assign(value, entry, OMS_CONFIG_STRING, false);
            value.where = file->path + ":" + std::to_string(line_of(entry));
        }
    }
}

std::map<std::string, ConfigValue> Config::string_map(const std::string& table, const std::string& key) const {
    auto found = string_maps_.find(table + "." + key);
    return found == string_maps_.end() ? std::map<std::string, ConfigValue>{} : found->second;
}

void Config::check_tables(const std::vector<std::string>& known) const {
    for (auto& file : files_) {
        std::vector<std::pair<std::string, int64_t>> tables;
        collect_tables(file->root, "", tables);
        for (auto& [name, line] : tables) {
            bool ok = false;
            for (auto& k : known) ok = ok || k == name;
            if (!ok) {
                std::string hint = name.rfind("plugin.", 0) == 0 ? "no plugin with this id is loaded"
                                                                  : "unknown table";
                config_error(file->path, line, name, hint);
            }
        }
        for (auto& [key, node] : file->root)
            if (!node.is_table())
                config_error(file->path, line_of(node), std::string(key.str()),
                             "keys belong in a table such as [sandbox] or [plugin.<id>]");
    }
}

bool Config::has_table(const std::string& table) const {
    for (auto& file : files_)
        if (find_table(file->root, table)) return true;
    return false;
}

const ConfigValue* Config::get(const std::string& table, const std::string& key) const {
    auto t = values_.find(table);
    if (t == values_.end()) return nullptr;
    auto v = t->second.find(key);
    return v == t->second.end() ? nullptr : &v->second;
}

std::vector<std::string> Config::strings(const std::string& table, const std::string& key) const {
    const ConfigValue* value = get(table, key);
    return value ? value->strings : std::vector<std::string>{};
}

std::optional<std::string> Config::text(const std::string& table, const std::string& key) const {
    const ConfigValue* value = get(table, key);
    if (!value || value->text.empty()) return std::nullopt;
    return value->text;
}

bool Config::boolean(const std::string& table, const std::string& key, bool fallback) const {
    const ConfigValue* value = get(table, key);
    return value ? value->boolean : fallback;
}

std::vector<std::pair<std::string, std::string>> Config::files_read() const {
    std::vector<std::pair<std::string, std::string>> out;
    for (auto& file : files_) out.emplace_back(file->path, layer_name(file->layer));
    return out;
}

}  // namespace oms::core
