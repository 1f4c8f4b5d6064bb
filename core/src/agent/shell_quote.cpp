#include "oms/core/shell_quote.hpp"

namespace oms::core {

std::string shell_quoted(std::string_view text) {
    std::string quoted = "'";
    for (char c : text) {
        if (c == '\'')
            quoted += "'\\''";
        else
            quoted += c;
    }
    return quoted + "'";
}

}  // namespace oms::core
