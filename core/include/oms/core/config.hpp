// Layered TOML configuration: built-in defaults, then the user's file, then
// the worktree's .oms/config.toml (which may only narrow). Every key is
// checked against a schema (the core's own [sandbox] table, and one declared
// by each plugin for [plugin.<id>]); errors name the file, line and key.
#pragma once
#include <oms/sdk.h>

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace oms::core {

enum class ConfigLayer { Defaults, User, Worktree };

struct KeySpec {
    oms_config_type type;
    bool narrows;  // a worktree file may set it (arrays are appended)
    std::string description;
};
using Schema = std::map<std::string, KeySpec>;

struct ConfigValue {
    oms_config_type type = OMS_CONFIG_STRING;
    std::string text;
    int64_t integer = 0;
    bool boolean = false;
    std::vector<std::string> strings;
    std::vector<int64_t> integers;
    std::string where;  // "file:line" of the last layer that set it
};

// The core's own table, [sandbox].
const Schema& core_schema();
const char* type_name(oms_config_type type);

class Config {
public:
    Config();
    ~Config();
    Config(Config&&) noexcept;
    Config& operator=(Config&&) noexcept;

    // Parse one file of a layer; a missing file is skipped (not an error).
    // Throws UserError naming file and line on malformed TOML.
    void add_file(const std::string& path, ConfigLayer layer);

    // Validate and merge one table (e.g. "sandbox" or "plugin.docker") of
    // every file against its schema. Throws UserError on an unknown key, a
    // wrong type, or a widening key in the worktree layer.
    void resolve(const std::string& table, const Schema& schema);

    // Throws UserError when a file has a table outside `known` (e.g. a
    // [plugin.x] section for a plugin that is not loaded).
    void check_tables(const std::vector<std::string>& known) const;
    // Does any file have this table (e.g. "plugin.docker")?
    bool has_table(const std::string& table) const;

    // A table of strings inside `table`, such as [network] pinned_addresses =
    // { "pkg.test" = "127.0.0.1" }: names merged over the layers, each value
    // a string. Only the defaults and the user's file may set it (it widens).
    // Its dotted name ("network.pinned_addresses") must be among the known
    // tables of check_tables.
    void resolve_string_map(const std::string& table, const std::string& key);
    std::map<std::string, ConfigValue> string_map(const std::string& table, const std::string& key) const;

    const ConfigValue* get(const std::string& table, const std::string& key) const;
    std::vector<std::string> strings(const std::string& table, const std::string& key) const;
    std::optional<std::string> text(const std::string& table, const std::string& key) const;
    bool boolean(const std::string& table, const std::string& key, bool fallback) const;

    // The files actually read, in layer order, with their layer names.
    std::vector<std::pair<std::string, std::string>> files_read() const;

private:
    struct ParsedFile;
    std::vector<std::unique_ptr<ParsedFile>> files_;
    std::map<std::string, std::map<std::string, ConfigValue>> values_;
    std::map<std::string, std::map<std::string, ConfigValue>> string_maps_;  // by "table.key"
};

}  // namespace oms::core
