// The --json output: a small builder over nlohmann::json (objects, arrays,
// strings, numbers, booleans) for commands that write their reply member by
// member. Text that is not valid UTF-8 (paths are bytes) is kept readable.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace oms::core {

class JsonWriter {
public:
    JsonWriter& begin_object();
    JsonWriter& end_object();
    JsonWriter& begin_array();
    JsonWriter& end_array();
    JsonWriter& key(std::string_view name);
    JsonWriter& value(std::string_view text);
    JsonWriter& value(const char* text) { return value(std::string_view(text)); }
    JsonWriter& value(int64_t number);
    JsonWriter& value(bool flag);
    JsonWriter& strings(const std::vector<std::string>& items);
    // The document written so far, compact.
    std::string str() const { return root_.dump(); }

private:
    nlohmann::ordered_json& add(nlohmann::ordered_json item);
    nlohmann::ordered_json root_;
    std::vector<nlohmann::ordered_json*> open_;  // containers not yet ended, innermost last
    std::string key_;                            // the member name for the next value in an object
};

// `text` as one JSON string. A byte that is not part of valid UTF-8 stands
// for its Latin-1 character, so the output is always valid JSON.
std::string json_escape(std::string_view text);

}  // namespace oms::core
