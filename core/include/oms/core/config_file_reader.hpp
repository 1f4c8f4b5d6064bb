// Reads a config file's text for the parser without letting the file's
// shape act on oms: a worktree's .oms/config.toml lies where commands
// write, so a FIFO there must not hang every later oms command, a link
// must not make oms parse (and quote in its errors) a file the command
// could not read, and a huge file must not be parsed whole.
#pragma once
#include <optional>
#include <string>

namespace oms::core {

constexpr long kConfigFileSizeLimit = 1 << 20;

struct ConfigFileText {
    bool found = false;                 // false: no such file (not an error)
    std::string text;                   // when found and no problem
    std::optional<std::string> problem; // why the file cannot be used as a config file
};

// A regular file of at most kConfigFileSizeLimit bytes, opened without
// blocking. With `no_links` (the worktree's layer) neither the file nor
// its folder may be a symbolic link.
ConfigFileText read_config_file(const std::string& path, bool no_links);

}  // namespace oms::core
