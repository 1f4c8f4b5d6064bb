#include "json.hpp"

#include <stdexcept>

namespace oms::docker::json {

Value parse(std::string_view text) {
    try {
        return Value::parse(text);
    } catch (const Value::parse_error& e) {
        throw std::runtime_error(std::string("malformed JSON from the docker daemon: ") + e.what());
    }
}

const Value& member(const Value& object, const std::string& key) {
    static const Value null_value;
    if (!object.is_object()) return null_value;
    auto it = object.find(key);
    return it == object.end() ? null_value : *it;
}

std::string text_or(const Value& value, const std::string& fallback) {
    return value.is_string() ? value.get<std::string>() : fallback;
}

int64_t integer_or(const Value& value, int64_t fallback) {
    return value.is_number() ? value.get<int64_t>() : fallback;
}

bool flag(const Value& value) { return value.is_boolean() && value.get<bool>(); }

std::string body(const Value& value) {
    try {
        return value.dump();
    } catch (const Value::type_error& e) {
        throw std::runtime_error("docker: a value for the Engine API is not valid UTF-8 (" + std::string(e.what()) +
                                 "); oms does not alter arguments or environment values");
    }
}

}  // namespace oms::docker::json
