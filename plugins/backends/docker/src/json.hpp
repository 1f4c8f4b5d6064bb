// A minimal JSON reader and string quoting, enough for the Docker Engine API
// replies the backend reads (version, image and exec inspection, container
// lists) and the request bodies it writes. Plugins may not use a JSON library.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace oms::docker::json {

class Value {
public:
    enum class Type { Null, Boolean, Number, String, Array, Object };
    Type type = Type::Null;
    bool boolean = false;
    double number = 0;
    std::string string;
    std::vector<Value> array;
    std::map<std::string, Value> object;

    // Member of an object, or a shared null value when absent or not an object.
    const Value& operator[](const std::string& key) const;
    bool is_null() const { return type == Type::Null; }
    std::string text_or(const std::string& fallback) const;
    int64_t integer_or(int64_t fallback) const;
};

// Parses a whole document; throws std::runtime_error on malformed input.
Value parse(std::string_view text);

// `text` as a quoted JSON string, escaped.
std::string quote(std::string_view text);
// A JSON array of quoted strings.
std::string quote_all(const std::vector<std::string>& items);

}  // namespace oms::docker::json
