// How often a piece of text occurs in a command's output: for checks that a
// line is printed exactly once, not merely printed.
#pragma once

#include <cstddef>
#include <string>

inline size_t count_of(const std::string& text, const std::string& part) {
    size_t count = 0;
    for (size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++count;
    return count;
}
