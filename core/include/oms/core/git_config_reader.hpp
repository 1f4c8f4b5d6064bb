// A reader for git's config file syntax (sections, subsections, quoted
// values, escapes, comments, continuation lines). It only parses: includes
// are not followed and nothing is interpreted. Used on the user's own
// ~/.gitconfig, which may still be malformed: any syntax error is reported
// with its line and no entry is returned.
#pragma once
#include <optional>
#include <string>
#include <vector>

namespace oms::core {

struct GitConfigEntry {
    std::string section;                    // lower case ("user")
    std::optional<std::string> subsection;  // as written, case kept ("https://x")
    std::string key;                        // lower case ("defaultbranch")
    std::optional<std::string> value;       // nullopt: a bare key (boolean true)
    int line = 0;
};

struct GitConfigParse {
    std::vector<GitConfigEntry> entries;  // empty when `problem` is set
    std::optional<std::string> problem;   // "line N: why"
};

GitConfigParse parse_git_config(const std::string& text);

}  // namespace oms::core
