#include "oms/core/git_config_reader.hpp"

#include <cctype>

namespace oms::core {

namespace {

struct SyntaxError {
    std::string why;
};

class Reader {
public:
    explicit Reader(const std::string& text) : text_(text) {}

    GitConfigParse parse() {
        GitConfigParse out;
        try {
            while (skip_blank_and_comments()) {
                if (peek() == '[') read_section_header();
                else out.entries.push_back(read_entry());
            }
        } catch (const SyntaxError& error) {
            out.entries.clear();
            out.problem = "line " + std::to_string(line_) + ": " + error.why;
        }
        return out;
    }

private:
    const std::string& text_;
    size_t at_ = 0;
    int line_ = 1;
    std::string section_;
    std::optional<std::string> subsection_;

    bool done() const { return at_ >= text_.size(); }
    char peek() const { return done() ? '\0' : text_[at_]; }
    char take() {
        char c = text_[at_++];
        if (c == '\n') ++line_;
        return c;
    }
    static bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r'; }
    void skip_spaces() {
        while (!done() && is_space(peek())) take();
    }
    void skip_to_line_end() {
        while (!done() && peek() != '\n') take();
    }

    // Skips whitespace, empty lines and comment lines; false at the end.
    bool skip_blank_and_comments() {
        for (;;) {
            skip_spaces();
            if (done()) return false;
            if (peek() == '\n') take();
            else if (peek() == '#' || peek() == ';') skip_to_line_end();
            else return true;
        }
    }

    void read_section_header() {
        take();  // '['
        std::string name;
        while (!done() && (std::isalnum(static_cast<unsigned char>(peek())) || peek() == '-' || peek() == '.'))
            name += static_cast<char>(std::tolower(static_cast<unsigned char>(take())));
        if (name.empty()) throw SyntaxError{"a section header without a name"};
        subsection_.reset();
        if (is_space(peek())) {
            skip_spaces();
            if (peek() != '"') throw SyntaxError{"a section header with a stray word"};
            subsection_ = read_quoted_subsection();
        } else if (auto dot = name.find('.'); dot != std::string::npos) {
            subsection_ = name.substr(dot + 1);  // old [section.sub] syntax
            name.resize(dot);
        }
        if (peek() != ']') throw SyntaxError{"a section header without its closing ']'"};
        take();
        section_ = name;
    }

    std::string read_quoted_subsection() {
        take();  // '"'
        std::string out;
        for (;;) {
            if (done() || peek() == '\n') throw SyntaxError{"an unterminated subsection name"};
            char c = take();
            if (c == '"') return out;
            if (c == '\\') {
                if (done() || peek() == '\n') throw SyntaxError{"an unterminated subsection name"};
                c = take();
            }
            out += c;
        }
    }

    GitConfigEntry read_entry() {
        if (section_.empty()) throw SyntaxError{"a key before any section header"};
        GitConfigEntry entry{section_, subsection_, "", std::nullopt, line_};
        if (!std::isalpha(static_cast<unsigned char>(peek()))) throw SyntaxError{"a key must start with a letter"};
        while (!done() && (std::isalnum(static_cast<unsigned char>(peek())) || peek() == '-'))
            entry.key += static_cast<char>(std::tolower(static_cast<unsigned char>(take())));
        skip_spaces();
        if (done() || peek() == '\n' || peek() == '#' || peek() == ';') {
            skip_to_line_end();
            return entry;
        }
        if (peek() != '=') throw SyntaxError{"'=' expected after the key '" + entry.key + "'"};
        take();
        entry.value = read_value();
        return entry;
    }

    std::string read_value() {
        skip_spaces();
        std::string out;
        size_t kept = 0;  // length without trailing unquoted whitespace
        bool quoted = false;
        while (!done()) {
            if (peek() == '\n') {
                if (quoted) throw SyntaxError{"an unterminated quoted value"};
                take();
                break;
            }
            char c = take();
            if (!quoted && (c == '#' || c == ';')) {
                skip_to_line_end();
                break;
            }
            if (c == '"') {
                quoted = !quoted;
                kept = out.size();
                continue;
            }
            if (c == '\\') {
                if (done()) throw SyntaxError{"a backslash at the end of the file"};
                char e = take();
                if (e == '\n') continue;  // a continuation line
                if (e == 'n') out += '\n';
                else if (e == 't') out += '\t';
                else if (e == 'b') out += '\b';
                else if (e == '\\' || e == '"') out += e;
                else throw SyntaxError{std::string("an unknown escape '\\") + e + "'"};
                kept = out.size();
                continue;
            }
            out += c;
            if (quoted || !is_space(c)) kept = out.size();
        }
        if (quoted) throw SyntaxError{"an unterminated quoted value"};
        out.resize(kept);
        return out;
    }
};

}  // namespace

GitConfigParse parse_git_config(const std::string& text) { return Reader(text).parse(); }

}  // namespace oms::core
