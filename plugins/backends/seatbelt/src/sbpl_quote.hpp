// Turning policy text into exact Seatbelt values. Nothing here ever splices a
// value into the profile text: paths and patterns travel as -D parameters, so
// these helpers only build the parameter values and their display form.
#pragma once
#include <string>
#include <string_view>

namespace oms::seatbelt {

// A regex that matches exactly `text` (every metacharacter escaped), for
// Seatbelt's (regex ...) filter. Bytes >= 0x80 pass through unchanged.
std::string regex_literal(std::string_view text);

// A regex matching any path that ends with `suffix` ("-keypair.json"),
// ASCII letters in either case.
std::string suffix_regex(std::string_view suffix);
// A regex matching any path below a folder inside `root` whose path ends
// with `suffix`.
std::string suffix_folder_regex(std::string_view root, std::string_view suffix);

// One shell word that a POSIX shell reads back as exactly `text`: single
// quotes, or $'...' with escapes when the text holds control bytes (a newline
// in a path must not break a rendered line).
std::string shell_word(std::string_view text);

}  // namespace oms::seatbelt
