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

TEST_CASE("json_escape: valid UTF-8 passes through, invalid bytes become their Latin-1 characters") {
    CHECK(json_escape("caf\xc3\xa9 \xe2\x82\xac") == "\"caf\xc3\xa9 \xe2\x82\xac\"");  // positive control
    CHECK(json_escape("bad\xff") == "\"bad\xc3\xbf\"");              // U+00FF
    CHECK(json_escape("cut\xc3") == "\"cut\xc3\x83\"");              // truncated sequence: U+00C3
    CHECK(json_escape("\xc0\xaf") == "\"\xc3\x80\xc2\xaf\"");         // overlong form: U+00C0 U+00AF
}

TEST_CASE("JsonWriter separates members and nests containers") {
    JsonWriter json;
    json.begin_object().key("a").value(int64_t{1}).key("b").strings({"x", "y"}).key("c").begin_object();
    json.key("d").value(true).end_object().end_object();
    CHECK(json.str() == "{\"a\":1,\"b\":[\"x\",\"y\"],\"c\":{\"d\":true}}");
}

TEST_CASE("JsonWriter keeps nested containers intact as siblings are added") {
    JsonWriter json;
    json.begin_array().begin_object().key("p").value("a\xff").end_object();
    for (int i = 0; i < 40; ++i) json.begin_array().value(int64_t{i}).end_array();
    json.end_array();
    CHECK(json.str().rfind("[{\"p\":\"a\xc3\xbf\"},[0],[1],", 0) == 0);
    CHECK(json.str().size() > 100);
}
