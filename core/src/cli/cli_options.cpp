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

namespace {

// True when `word` names an option of `description` whose value is the next
// word ("--sandbox ID", "-o DIR"), as the parser would read it (long names
// may be abbreviated).
bool value_follows(const std::string& word, const po::options_description& description) {
    std::string name;
    if (word.compare(0, 2, "--") == 0) {
        if (word.find('=') != std::string::npos) return false;
        name = word.substr(2);
    } else {
        if (word.size() != 2) return false;  // "-xVALUE" or bundled switches
        name = word;
    }
    const po::option_description* option = description.find_nothrow(name, true);
    return option != nullptr && option->semantic()->max_tokens() > 0;
}

}  // namespace

std::pair<Args, Args> split_at_command(const Args& args, const po::options_description& description) {
    for (size_t i = 0; i < args.size(); ++i) {
        const std::string& word = args[i];
        if (word == "--") return {Args(args.begin(), args.begin() + i), Args(args.begin() + i + 1, args.end())};
        if (word.size() < 2 || word[0] != '-') return {Args(args.begin(), args.begin() + i), Args(args.begin() + i, args.end())};
        if (value_follows(word, description)) ++i;
    }
    return {args, {}};
}

}  // namespace oms::core
