#include "sbpl_quote.hpp"

#include <cctype>
#include <cstdio>

namespace oms::seatbelt {

namespace {

// Exactly the characters POSIX names special in extended regexes (the
// syntax of Seatbelt's regex filter): .[\()*+?{|^$. A closing ']' or '}'
// is an ordinary character there, and escaping one is undefined, so a
// stricter engine could refuse the whole profile.
bool is_regex_meta(char c) {
    switch (c) {
        case '\\': case '^': case '$': case '.': case '|': case '?': case '*':
        case '+': case '(': case ')': case '[': case '{':
            return true;
        default:
            return false;
    }
}

bool is_control(unsigned char c) { return c < 0x20 || c == 0x7f; }

std::string ansi_c_quoted(std::string_view text) {
    std::string out = "$'";
    for (char c : text) {
        const auto byte = static_cast<unsigned char>(c);
        if (c == '\\' || c == '\'') {
            out += '\\';
            out += c;
        } else if (c == '\n') {
            out += "\\n";
        } else if (c == '\t') {
            out += "\\t";
        } else if (is_control(byte)) {
            char hex[8];
            std::snprintf(hex, sizeof hex, "\\x%02x", byte);
            out += hex;
        } else {
            out += c;
        }
    }
    return out + "'";
}

}  // namespace

std::string regex_literal(std::string_view text) {
    std::string out;
    for (char c : text) {
        if (is_regex_meta(c)) out += '\\';
        out += c;
    }
    return out;
}

// The suffix as a regex that ignores ASCII case: macOS's file systems ignore
// it by default, so `PROG-KEYPAIR.JSON` is the file a `cp` to
// `prog-keypair.json` writes. Other Unicode case folds are not covered.
std::string suffix_pattern(std::string_view suffix) {
    std::string out;
    for (char c : suffix) {
        const unsigned char u = static_cast<unsigned char>(c);
        if (std::isalpha(u) && u < 0x80) {
            out += '[';
            out += static_cast<char>(std::tolower(u));
            out += static_cast<char>(std::toupper(u));
            out += ']';
        } else {
            out += regex_literal(std::string_view(&c, 1));
        }
    }
    return out;
}

std::string suffix_regex(std::string_view suffix) { return suffix_pattern(suffix) + "$"; }

std::string suffix_folder_regex(std::string_view root, std::string_view suffix) {
    // "/id.json" may follow the root at once; "-keypair.json" ends a name
    // that starts after a slash below the root.
    const std::string between = !suffix.empty() && suffix.front() == '/' ? "(/.*)?" : "/.*";
    return "^" + regex_literal(root) + between + suffix_pattern(suffix) + "/";
}

std::string shell_word(std::string_view text) {
    for (char c : text)
        if (is_control(static_cast<unsigned char>(c))) return ansi_c_quoted(text);
    std::string out = "'";
    for (char c : text) {
        if (c == '\'') out += "'\\''";
        else out += c;
    }
    return out + "'";
}

}  // namespace oms::seatbelt
