// Reads SBPL text into S-expressions: lists, symbols and strings. Comments
// (';' to end of line) are skipped. Strings are "..." with backslash escapes
// or #"..." (a regex literal, taken raw). Anything malformed throws
// sbpl::ParseError with the byte offset.
#pragma once
#include <string>
#include <vector>

namespace oms::test::sbpl {

struct Node {
    enum class Type { list, symbol, string } type = Type::list;
    std::string text;          // symbol name or string value
    std::vector<Node> items;   // list elements
    size_t offset = 0;         // where it starts in the source, for messages
    bool is_symbol(const char* name) const { return type == Type::symbol && text == name; }
};

// Every top-level form of `text`, in order.
std::vector<Node> read_forms(const std::string& text);

}  // namespace oms::test::sbpl
