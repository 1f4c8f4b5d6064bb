// Reading a plugin's path lists from `[plugin.<id>]` with the checks every
// policy plugin applies, and the one error format they share:
// "[plugin.<id>] <key>: <what is wrong>".
#pragma once
#include <oms/sdk.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace oms::policies {

// Throws oms::sdk::Error(OMS_ERR_INVALID) naming the table and key.
[[noreturn]] void config_error(std::string_view plugin_id, std::string_view key, std::string_view problem);

// How a list treats entries that are neither absolute nor "~/...".
enum class RelativePaths {
    refuse,     // an error: the entry's meaning would depend on the current folder
    from_home,  // taken as relative to HOME (".ssh/x" means "$HOME/.ssh/x")
};

// The string array `key` as absolute paths: "~" and "~/x" expand to HOME,
// relative entries follow `relative`, an empty entry is an error.
std::vector<std::string> config_paths(const oms::sdk::Host& host, std::string_view plugin_id, const char* key,
                                      std::string_view home, RelativePaths relative);

}  // namespace oms::policies
