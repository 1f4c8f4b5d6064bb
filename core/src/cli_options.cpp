#include "oms/core/cli_options.hpp"

#include <boost/program_options/parsers.hpp>
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

std::pair<Args, Args> split_at_dashes(const Args& args) {
    for (size_t i = 0; i < args.size(); ++i)
        if (args[i] == "--") return {Args(args.begin(), args.begin() + i), Args(args.begin() + i + 1, args.end())};
    return {args, {}};
}

}  // namespace oms::core
