// --json output stays valid JSON whatever bytes a path holds.
#include "oms/core/json.hpp"

#include <catch2/catch.hpp>

using oms::core::json_escape;
using oms::core::JsonWriter;

TEST_CASE("json_escape: quotes, backslashes and control bytes are escaped") {
    CHECK(json_escape("a\"b\\c") == "\"a\\\"b\\\\c\"");
    CHECK(json_escape("line\nnext\ttab") == "\"line\\nnext\\ttab\"");
    CHECK(json_escape(std::string("\x01\x1b", 2)) == "\"\\u0001\\u001b\"");
}

TEST_CASE("json_escape: valid UTF-8 passes through, invalid bytes become \\u00XX") {
    CHECK(json_escape("caf\xc3\xa9 \xe2\x82\xac") == "\"caf\xc3\xa9 \xe2\x82\xac\"");  // positive control
    CHECK(json_escape("bad\xff") == "\"bad\\u00ff\"");
    CHECK(json_escape("cut\xc3") == "\"cut\\u00c3\"");          // truncated sequence
    CHECK(json_escape("\xc0\xaf") == "\"\\u00c0\\u00af\"");      // overlong form
}

TEST_CASE("JsonWriter separates members and nests containers") {
    JsonWriter json;
    json.begin_object().key("a").value(int64_t{1}).key("b").strings({"x", "y"}).key("c").begin_object();
    json.key("d").value(true).end_object().end_object();
    CHECK(json.str() == "{\"a\":1,\"b\":[\"x\",\"y\"],\"c\":{\"d\":true}}");
}
