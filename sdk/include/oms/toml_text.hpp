// oms/toml_text.hpp: a check of TOML text before toml++ parses it. toml++
// 3.3 (Debian 12's) asks of a non-ASCII character met outside a string or
// a comment whether it is whitespace, and for most such characters (U+00A1
// to U+0499: accented letters, Greek, Cyrillic; most of U+2CDE to U+30D7;
// U+FB86 to U+FEFE) that question reaches __builtin_unreachable(): undefined
// behaviour, found by oms's fuzzing (upstream: marzer/tomlplusplus issues 190
// and 295). TOML allows no non-ASCII character there, so refusing it first
// costs a valid file nothing. A bare value (a number, a date) is read on
// past quotes and equals signs up to what ends a value, so what follows one
// up to a space, comma, bracket or '#' counts as outside a string here too
// (`s = 0e3s="é"`). The same question is asked of the character after
// any backslash in a basic string, and, in a multi-line basic string, of
// each character after a backslash followed by whitespace (toml++ trims
// that whitespace, line break or not, before it finds a line break
// missing): a non-ASCII character at either place (never a valid escape,
// nor valid after the trimmed whitespace) is refused too.
//
// Header-only.
#pragma once
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace oms::sdk::toml_text {

struct Flaw {
    size_t line = 0;  // 1-based
    std::string what;
};

namespace detail {

class Scanner {
public:
    explicit Scanner(std::string_view text) : text_(text) {}

    std::optional<Flaw> run() {
        while (at_ < text_.size())
            if (auto found = next()) return found;
        return std::nullopt;
    }

private:
    static bool is_control(unsigned char c) { return (c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7f; }

    std::optional<Flaw> outside_strings(unsigned char c) const {
        if (c >= 0x80) return flaw("a non-ASCII character outside a string or a comment (TOML allows none there)");
        if (is_control(c)) return flaw("a control character outside a string (TOML allows none)");
        return std::nullopt;
    }

    // One token outside strings and comments. The parser reads a key, or a
    // value's first character, and for a bare value (a number, a date, true)
    // it reads on up to what ends a value, asking of each character whether
    // it is whitespace: a quote there does not open a string, so what
    // follows it is checked as outside one.
    std::optional<Flaw> next() {
        const auto c = static_cast<unsigned char>(text_[at_]);
        if (auto found = outside_strings(c)) return found;
        switch (c) {
            case '#': skip_comment(); return std::nullopt;
            case '"': return skip_basic_string();
            case '\'': return skip_literal_string();
            case '\n': expect_key_ = nesting_.empty(); break;
            case ' ':
            case '\t':
            case '\r': break;
            case '=': expect_key_ = false; break;
            case '[':  // at a key's place and outside brackets: a table's name, not an array
                if (!(expect_key_ && nesting_.empty())) open('[', false);
                break;
            case '{': open('{', true); break;
            case ',': expect_key_ = !nesting_.empty() && nesting_.back() == '{'; break;
            case ']':
            case '}': close(); break;
            default:
                if (!expect_key_) return skip_bare_value();
                break;
        }
        step();
        return std::nullopt;
    }

    void open(char bracket, bool keys_follow) {
        nesting_.push_back(bracket);
        expect_key_ = keys_follow;
    }

    void close() {
        if (!nesting_.empty()) nesting_.pop_back();
        expect_key_ = false;
    }

    static bool ends_value(char c) {
        return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == ',' || c == ']' || c == '}' || c == '#';
    }

    std::optional<Flaw> skip_bare_value() {
        for (; at_ < text_.size() && !ends_value(text_[at_]); ++at_)
            if (auto found = outside_strings(static_cast<unsigned char>(text_[at_]))) return found;
        return std::nullopt;
    }

    bool at_triple(char quote) const { return text_.compare(at_, 3, std::string(3, quote)) == 0; }

    void step() {
        if (text_[at_] == '\n') ++line_;
        ++at_;
    }

    void skip_comment() {
        while (at_ < text_.size() && text_[at_] != '\n') ++at_;
    }

    bool closes(char quote, bool multi_line) const { return multi_line ? at_triple(quote) : text_[at_] == quote; }

    // Up to five quotes close a multi-line string: its content may end with two.
    void finish(char quote, bool multi_line) {
        if (!multi_line) {
            ++at_;
            return;
        }
        for (int n = 0; n < 5 && at_ < text_.size() && text_[at_] == quote; ++n) ++at_;
    }

    std::optional<Flaw> skip_literal_string() {
        const bool multi_line = at_triple('\'');
        at_ += multi_line ? 3 : 1;
        while (at_ < text_.size()) {
            if (closes('\'', multi_line)) {
                finish('\'', multi_line);
                return std::nullopt;
            }
            if (!multi_line && text_[at_] == '\n') return std::nullopt;  // unterminated: the parser says so
            step();
        }
        return std::nullopt;
    }

    std::optional<Flaw> skip_basic_string() {
        const bool multi_line = at_triple('"');
        at_ += multi_line ? 3 : 1;
        while (at_ < text_.size()) {
            if (closes('"', multi_line)) {
                finish('"', multi_line);
                return std::nullopt;
            }
            if (!multi_line && text_[at_] == '\n') return std::nullopt;  // unterminated: the parser says so
            if (text_[at_] == '\\') {
                if (multi_line && trims_after_backslash()) {
                    if (auto found = skip_trimmed_whitespace()) return found;
                    continue;
                }
                ++at_;  // the escaped character (checked by the parser) is skipped below
                if (at_ >= text_.size()) break;
                // Asked "is it whitespace?" before it is judged as an escape;
                // no escape is a non-ASCII character anyway.
                if (static_cast<unsigned char>(text_[at_]) >= 0x80)
                    return flaw("a non-ASCII character right after a backslash in a string (no escape is one)");
            }
            step();
        }
        return std::nullopt;
    }

    // A backslash followed by whitespace: toml++ trims from there (a
    // line-ending backslash when a line break follows, an error otherwise),
    // asking of each character whether it is whitespace.
    bool trims_after_backslash() const {
        const size_t next = at_ + 1;
        return next < text_.size() &&
               (text_[next] == ' ' || text_[next] == '\t' || text_[next] == '\r' || text_[next] == '\n');
    }

    // The whitespace a backslash trims, then the character after it.
    std::optional<Flaw> skip_trimmed_whitespace() {
        ++at_;
        while (at_ < text_.size() &&
               (text_[at_] == ' ' || text_[at_] == '\t' || text_[at_] == '\r' || text_[at_] == '\n'))
            step();
        if (at_ < text_.size() && static_cast<unsigned char>(text_[at_]) >= 0x80)
            return flaw("a non-ASCII character right after a backslash and whitespace in a multi-line string");
        return std::nullopt;
    }

    Flaw flaw(const char* what) const { return {line_, what}; }

    std::string_view text_;
    size_t at_ = 0;
    size_t line_ = 1;
    bool expect_key_ = true;  // a key may come next, not a value
    std::string nesting_;     // the open arrays ('[') and inline tables ('{')
};

}  // namespace detail

// The first place in `text` that toml++ 3.3 cannot be given safely, or nullopt.
inline std::optional<Flaw> unsafe_character(std::string_view text) { return detail::Scanner(text).run(); }

}  // namespace oms::sdk::toml_text
