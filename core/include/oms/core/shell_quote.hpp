// Text as one word of a POSIX shell command line, whatever it holds.
#pragma once
#include <string>
#include <string_view>

namespace oms::core {

// 'text' in single quotes, each ' inside written as '\'' (end the quote, an
// escaped quote, open again): inside single quotes nothing is special, so
// $(...), backticks, newlines and backslashes stay as they are. The text must
// not hold a NUL byte (no shell word can).
std::string shell_quoted(std::string_view text);

}  // namespace oms::core
