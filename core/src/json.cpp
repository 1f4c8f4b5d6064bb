#include "oms/core/json.hpp"

#include <cstdio>

namespace oms::core {

std::string json_escape(std::string_view text) {
    std::string out = "\"";
    for (unsigned char c : text) {
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
