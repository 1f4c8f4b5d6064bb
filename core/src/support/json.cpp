#include "oms/core/json.hpp"

namespace oms::core {

namespace {

// Length of the valid UTF-8 sequence starting at text[i], or 0.
size_t utf8_length(std::string_view text, size_t i) {
    unsigned char lead = static_cast<unsigned char>(text[i]);
    size_t length = lead < 0x80 ? 1 : lead >= 0xf0 && lead <= 0xf4 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc2 && lead <= 0xdf ? 2 : 0;
    if (length == 0 || i + length > text.size()) return 0;
    for (size_t k = 1; k < length; ++k)
        if ((static_cast<unsigned char>(text[i + k]) & 0xc0) != 0x80) return 0;
    return length;
}

// Paths are bytes, JSON strings are UTF-8: a byte outside valid UTF-8 becomes
// its Latin-1 character (two UTF-8 bytes), so nothing is dropped or refused.
std::string readable_utf8(std::string_view text) {
    std::string out;
    for (size_t i = 0; i < text.size();) {
        size_t length = utf8_length(text, i);
        if (length > 0) {
            out.append(text.substr(i, length));
            i += length;
        } else {
            unsigned char byte = static_cast<unsigned char>(text[i++]);
            out += static_cast<char>(0xc0 | (byte >> 6));
            out += static_cast<char>(0x80 | (byte & 0x3f));
        }
    }
    return out;
}

}  // namespace

std::string json_escape(std::string_view text) { return nlohmann::ordered_json(readable_utf8(text)).dump(); }

// Containers are only ever added to the innermost open one, so the pointers
// to the outer ones stay valid until they are ended.
nlohmann::ordered_json& JsonWriter::add(nlohmann::ordered_json item) {
    if (open_.empty()) return root_ = std::move(item);
    nlohmann::ordered_json& parent = *open_.back();
    if (parent.is_object()) return parent[key_] = std::move(item);
    parent.push_back(std::move(item));
    return parent.back();
}

JsonWriter& JsonWriter::begin_object() {
    open_.push_back(&add(nlohmann::ordered_json::object()));
    return *this;
}
JsonWriter& JsonWriter::end_object() {
    open_.pop_back();
    return *this;
}
JsonWriter& JsonWriter::begin_array() {
    open_.push_back(&add(nlohmann::ordered_json::array()));
    return *this;
}
JsonWriter& JsonWriter::end_array() {
    open_.pop_back();
    return *this;
}
JsonWriter& JsonWriter::key(std::string_view name) {
    key_ = readable_utf8(name);
    return *this;
}
JsonWriter& JsonWriter::value(std::string_view text) {
    add(readable_utf8(text));
    return *this;
}
JsonWriter& JsonWriter::value(int64_t number) {
    add(number);
    return *this;
}
JsonWriter& JsonWriter::value(bool flag) {
    add(flag);
    return *this;
}
JsonWriter& JsonWriter::strings(const std::vector<std::string>& items) {
    begin_array();
    for (auto& item : items) value(item);
    return end_array();
}

}  // namespace oms::core
