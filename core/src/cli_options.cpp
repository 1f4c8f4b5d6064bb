#include "oms/core/cli_options.hpp"

#include "oms/core/worktree_default.hpp"

#include <boost/program_options/parsers.hpp>
#include <boost/program_options/value_semantic.hpp>
#include <filesystem>
#include <iostream>

namespace po = boost::program_options;

namespace oms::core {

std::optional<po::variables_map> parse_options(const Args& args, po::options_description& description) {
    description.add_options()("help,h", "show this help");
    po::variables_map values;
    po::store(po::command_line_parser(args).options(description).run(), values);
    po::notify(values);
    if (values.count("help")) {
        std::cout << description << "\n";
        return std::nullopt;
    }
    return values;
}

std::optional<std::string> given(const po::variables_map& values, const char* name) {
    if (!values.count(name)) return std::nullopt;
    return values[name].as<std::string>();
}

std::optional<CommonOptions> parse_common_options(const Args& args, const char* usage) {
    CommonOptions options;
    po::options_description description(usage);
    description.add_options()("worktree", po::value<std::string>(&options.worktree),
                              "the task's worktree (default: as oms run: the repository holding the current folder)")(
        "json", po::bool_switch(&options.json), "machine-readable output")("sandbox", po::value<std::string>(),
                                                                           "backend id");
    auto values = parse_options(args, description);
    if (!values) return std::nullopt;
    options.sandbox = given(*values, "sandbox");
    // The worktree `oms run` would take from here, so settings, plugins and
    // task end speak of the same folder (and its .oms/config.toml).
    if (options.worktree.empty()) options.worktree = default_worktree(std::filesystem::current_path().string()).worktree;
    return options;
}

std::pair<Args, Args> split_at_dashes(const Args& args) {
    for (size_t i = 0; i < args.size(); ++i)
        if (args[i] == "--") return {Args(args.begin(), args.begin() + i), Args(args.begin() + i + 1, args.end())};
    return {args, {}};
}

}  // namespace oms::core
