#include "oms/core/json.hpp"

#include <cstdio>

namespace oms::core {

namespace {

// Length of the valid UTF-8 sequence starting at text[i], or 0.
size_t utf8_length(std::string_view text, size_t i) {
    unsigned char lead = static_cast<unsigned char>(text[i]);
    size_t length = lead >= 0xf0 && lead <= 0xf4 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc2 && lead <= 0xdf ? 2 : 0;
    if (length == 0 || i + length > text.size()) return 0;
    for (size_t k = 1; k < length; ++k)
        if ((static_cast<unsigned char>(text[i + k]) & 0xc0) != 0x80) return 0;
    return length;
}

}  // namespace

// Paths are bytes: a byte that is not part of valid UTF-8 is written as
// \u00XX (its Latin-1 reading), so the output is always valid JSON.
std::string json_escape(std::string_view text) {
    std::string out = "\"";
    for (size_t i = 0; i < text.size(); ++i) {
        unsigned char c = static_cast<unsigned char>(text[i]);
        if (c >= 0x80) {
            size_t length = utf8_length(text, i);
            if (length > 0) {
                out.append(text.substr(i, length));
                i += length - 1;
            } else {
                char buffer[8];
                std::snprintf(buffer, sizeof buffer, "\\u%04x", c);
                out += buffer;
            }
            continue;
        }
        switch (c) {
            case '"': out += "\\\""; break;
            case '\\': out += "\\\\"; break;
            case '\n': out += "\\n"; break;
            case '\r': out += "\\r"; break;
            case '\t': out += "\\t"; break;
            default:
                if (c < 0x20) {
                    char buffer[8];
                    std::snprintf(buffer, sizeof buffer, "\\u%04x", c);
                    out += buffer;
                } else {
                    out += static_cast<char>(c);
                }
        }
    }
    return out + "\"";
}

void JsonWriter::separator() {
    if (after_key_) {
        after_key_ = false;
        return;
    }
    if (!first_.empty()) {
        if (!first_.back()) out_ += ",";
        first_.back() = false;
    }
}

JsonWriter& JsonWriter::begin_object() {
    separator();
    out_ += "{";
    first_.push_back(true);
    return *this;
}
JsonWriter& JsonWriter::end_object() {
    out_ += "}";
    first_.pop_back();
    return *this;
}
JsonWriter& JsonWriter::begin_array() {
    separator();
    out_ += "[";
    first_.push_back(true);
    return *this;
}
JsonWriter& JsonWriter::end_array() {
    out_ += "]";
    first_.pop_back();
    return *this;
}
JsonWriter& JsonWriter::key(std::string_view name) {
    separator();
    out_ += json_escape(name) + ":";
    after_key_ = true;
    return *this;
}
JsonWriter& JsonWriter::value(std::string_view text) {
    separator();
    out_ += json_escape(text);
    return *this;
}
JsonWriter& JsonWriter::value(int64_t number) {
    separator();
    out_ += std::to_string(number);
    return *this;
}
JsonWriter& JsonWriter::value(bool flag) {
    separator();
    out_ += flag ? "true" : "false";
    return *this;
}
JsonWriter& JsonWriter::strings(const std::vector<std::string>& items) {
    begin_array();
    for (auto& item : items) value(item);
    return end_array();
}

}  // namespace oms::core
