// Where oms finds its own files and the user's: XDG folders, the folder of
// the running binary, canonical paths.
#pragma once
#include <optional>
#include <string>
#include <vector>

namespace oms::core {

// Value of an environment variable, or nullopt when unset or empty.
std::optional<std::string> env_value(const char* name);

std::string home_dir();           // $HOME, else the passwd entry
std::string user_config_file();   // $XDG_CONFIG_HOME/oms/config.toml (default ~/.config)
std::string state_dir();          // $XDG_STATE_HOME/oms (default ~/.local/state)
std::string executable_dir();     // folder of the running oms binary
std::string executable_path();    // the running oms binary itself (absolute)
std::string default_config_file();  // <bindir>/../share/oms/default.toml
std::string builtin_plugin_dir();   // <bindir>/../lib/oms/plugins

// Absolute, symlinks resolved when the path exists; lexically normal otherwise.
std::string canonical_or_absolute(const std::string& path);
// Split "a:b:c" (empty parts dropped).
std::vector<std::string> split_list(const std::string& text, char separator);

}  // namespace oms::core
