// Option parsing shared by the subcommands (Boost.Program_options).
#pragma once
#include "oms/core/cli.hpp"

#include <boost/program_options/options_description.hpp>
#include <boost/program_options/variables_map.hpp>
#include <optional>
#include <string>
#include <utility>

namespace oms::core {

// Adds --help, parses `args`; returns nullopt after printing the help.
// Throws boost::program_options::error on a bad option.
std::optional<boost::program_options::variables_map> parse_options(
    const Args& args, boost::program_options::options_description& description);

// The value of a string option when given.
std::optional<std::string> given(const boost::program_options::variables_map& values, const char* name);

// The options of the small commands: [--worktree DIR] [--json] [--sandbox ID].
struct CommonOptions {
    std::string worktree;  // the current folder when not given
    bool json = false;
    std::optional<std::string> sandbox;
};
// Returns nullopt after printing the help.
std::optional<CommonOptions> parse_common_options(const Args& args, const char* usage);

// oms's options and the command, as env, timeout and bwrap split them: the
// command starts at the first word that is neither one of `description`'s
// options nor such an option's value, or after a "--" (which is dropped).
// Everything from the command's first word on is the command's, options too
// (`oms run ls -la`).
std::pair<Args, Args> split_at_command(const Args& args,
                                       const boost::program_options::options_description& description);

}  // namespace oms::core
