// The Docker Engine API speaks JSON: replies are read and request bodies are
// written with nlohmann::json (header-only, so the plugin still links only the
// SDK and libc). These helpers add the lenient reads the backend wants (a
// missing or mistyped member reads as a fallback) and a body writer that
// refuses text the API cannot carry.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace oms::docker::json {

using Value = nlohmann::ordered_json;  // members keep their written order

// Parses a whole reply; throws std::runtime_error naming the byte on malformed input.
Value parse(std::string_view text);

// Member `key` of an object, or a shared null value when absent or not an object.
const Value& member(const Value& object, const std::string& key);
std::string text_or(const Value& value, const std::string& fallback);
int64_t integer_or(const Value& value, int64_t fallback);
bool flag(const Value& value);  // false unless a JSON true

// A request body. Throws std::runtime_error when a string is not valid UTF-8
// (the daemon would silently replace such bytes: an argument must not change).
std::string body(const Value& value);

}  // namespace oms::docker::json
