#include "json.hpp"

#include <cstdio>
#include <cstdlib>
#include <stdexcept>

namespace oms::docker::json {

const Value& Value::operator[](const std::string& key) const {
    static const Value null_value;
    if (type != Type::Object) return null_value;
    auto it = object.find(key);
    return it == object.end() ? null_value : it->second;
}

std::string Value::text_or(const std::string& fallback) const {
    return type == Type::String ? string : fallback;
}

int64_t Value::integer_or(int64_t fallback) const {
    return type == Type::Number ? static_cast<int64_t>(number) : fallback;
}

namespace {

class Parser {
public:
    explicit Parser(std::string_view text) : text_(text) {}

    Value document() {
        Value v = value();
        skip_space();
        if (pos_ != text_.size()) fail("trailing characters");
        return v;
    }

private:
    std::string_view text_;
    size_t pos_ = 0;

    [[noreturn]] void fail(const std::string& what) const {
        throw std::runtime_error("malformed JSON at byte " + std::to_string(pos_) + ": " + what);
    }
    void skip_space() {
        while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\n' || text_[pos_] == '\r' ||
                                       text_[pos_] == '\t'))
            ++pos_;
    }
    char peek() {
        skip_space();
        if (pos_ >= text_.size()) fail("unexpected end");
        return text_[pos_];
    }
    void expect(char c) {
        if (peek() != c) fail(std::string("expected '") + c + "'");
        ++pos_;
    }
    bool literal(std::string_view word) {
        if (text_.substr(pos_, word.size()) != word) return false;
        pos_ += word.size();
        return true;
    }

    Value value() {
        char c = peek();
        if (c == '{') return object();
        if (c == '[') return array();
        Value v;
        if (c == '"') {
            v.type = Value::Type::String;
            v.string = string();
        } else if (literal("true")) {
            v.type = Value::Type::Boolean;
            v.boolean = true;
        } else if (literal("false")) {
            v.type = Value::Type::Boolean;
        } else if (literal("null")) {
        } else {
            v.type = Value::Type::Number;
            v.number = number();
        }
        return v;
    }

    Value object() {
        Value v;
        v.type = Value::Type::Object;
        expect('{');
        if (peek() == '}') return ++pos_, v;
        for (;;) {
            if (peek() != '"') fail("expected a key");
            std::string key = string();
            expect(':');
            v.object[key] = value();
            if (peek() == '}') return ++pos_, v;
            expect(',');
        }
    }

    Value array() {
        Value v;
        v.type = Value::Type::Array;
        expect('[');
        if (peek() == ']') return ++pos_, v;
        for (;;) {
            v.array.push_back(value());
            if (peek() == ']') return ++pos_, v;
            expect(',');
        }
    }

    double number() {
        size_t start = pos_;
        while (pos_ < text_.size() && std::string_view("+-0123456789.eE").find(text_[pos_]) != std::string_view::npos)
            ++pos_;
        if (start == pos_) fail("unexpected character");
        return std::strtod(std::string(text_.substr(start, pos_ - start)).c_str(), nullptr);
    }

    unsigned hex4() {
        if (pos_ + 4 > text_.size()) fail("short \\u escape");
        unsigned code = 0;
        for (int i = 0; i < 4; ++i) {
            char h = text_[pos_++];
            code <<= 4;
            if (h >= '0' && h <= '9') code |= unsigned(h - '0');
            else if (h >= 'a' && h <= 'f') code |= unsigned(h - 'a' + 10);
            else if (h >= 'A' && h <= 'F') code |= unsigned(h - 'A' + 10);
            else fail("bad \\u escape");
        }
        return code;
    }

    static void append_utf8(std::string& out, unsigned code) {
        if (code < 0x80) {
            out += char(code);
        } else if (code < 0x800) {
            out += char(0xC0 | (code >> 6));
            out += char(0x80 | (code & 0x3F));
        } else {
            out += char(0xE0 | (code >> 12));
            out += char(0x80 | ((code >> 6) & 0x3F));
            out += char(0x80 | (code & 0x3F));
        }
    }

    std::string string() {
        expect('"');
        std::string out;
        while (pos_ < text_.size()) {
            char c = text_[pos_++];
            if (c == '"') return out;
            if (c != '\\') {
                out += c;
                continue;
            }
            if (pos_ >= text_.size()) break;
            char e = text_[pos_++];
            switch (e) {
                case 'n': out += '\n'; break;
                case 't': out += '\t'; break;
                case 'r': out += '\r'; break;
                case 'b': out += '\b'; break;
                case 'f': out += '\f'; break;
                case 'u': append_utf8(out, hex4()); break;  // surrogate pairs are not needed here
                default: out += e;
            }
        }
        fail("unterminated string");
    }
};

}  // namespace

Value parse(std::string_view text) { return Parser(text).document(); }

std::string quote(std::string_view text) {
    std::string out = "\"";
    for (unsigned char c : text) {
        if (c == '"' || c == '\\') {
            out += '\\';
            out += char(c);
        } else if (c < 0x20) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\u%04x", c);
            out += buf;
        } else {
            out += char(c);
        }
    }
    return out + "\"";
}

std::string quote_all(const std::vector<std::string>& items) {
    std::string out = "[";
    for (size_t i = 0; i < items.size(); ++i) out += (i ? "," : "") + quote(items[i]);
    return out + "]";
}

}  // namespace oms::docker::json
