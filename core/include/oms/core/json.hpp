// A small streaming JSON writer for --json output (objects, arrays, strings,
// numbers, booleans), with correct string escaping.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

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
    const std::string& str() const { return out_; }

private:
    void separator();
    std::string out_;
    std::vector<bool> first_;  // per open container: nothing written yet
    bool after_key_ = false;
};

std::string json_escape(std::string_view text);

}  // namespace oms::core
