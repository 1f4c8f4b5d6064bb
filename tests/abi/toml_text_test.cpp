// oms/toml_text.hpp: the characters toml++ 3.3 cannot be given safely
// (issue 37's fuzzing: undefined behaviour in its whitespace check) are
// refused with their line, and every valid use of non-ASCII text (strings,
// comments, quoted keys) is still accepted.
#include <oms/toml_text.hpp>

#include <catch2/catch.hpp>

using oms::sdk::toml_text::unsafe_character;

namespace {

std::string flaw_of(const std::string& text) {
    const auto flaw = unsafe_character(text);
    return flaw ? std::to_string(flaw->line) + ": " + flaw->what : "";
}

}  // namespace

TEST_CASE("toml_text: non-ASCII text in strings, comments and quoted keys is accepted") {
    for (const char* text :
         {"name = \"caf\xc3\xa9\"\n", "# caf\xc3\xa9\n", "a = 1 # \xc3\xa9\n", "a = '\xc3\xbc'\n",
          "a = \"\"\"\n \xc3\xbc\"\"\"\n", "a = '''\xc3\xbc'''\n", "a = [\"\xc3\xa9\",\n '\xc3\xbc']\n",
          "t = { k = \"\xd0\xb6\", n = 1 }\n", "\"\xd0\xba\" = 1\n", "[table.\"\xc3\xa9\"]\nx = 1\n",
          "a = \"\"\"x\"\"\"\"\n", "a = \"\\\"\xc3\xa9\"\n", "[[x]]\nb = 1979-05-27 07:32:00\n"}) {
        INFO(text);
        CHECK(flaw_of(text).empty());
    }
}

TEST_CASE("toml_text: a non-ASCII character where toml++ asks whether it is whitespace is refused, with its line") {
    const std::string outside = "a non-ASCII character outside a string or a comment (TOML allows none there)";
    CHECK(flaw_of("\xc3\xa9 = 1\n") == "1: " + outside);
    CHECK(flaw_of("a = 1\nb = 2 \xc2\xa7\n") == "2: " + outside);
    CHECK(flaw_of("\xef\xbb\xafp") == "1: " + outside);
    // A bare value is read on past a quote or an equals sign.
    CHECK(flaw_of("s = 0e3s=\"\xd1\x9d\"\n") == "1: " + outside);
    CHECK(flaw_of("k = 4.'\xef\xb3\xbf'\n") == "1: " + outside);
    CHECK(flaw_of("s = \"\"\"\\\n\xc2\xa7\"\"\"\n") ==
          "2: a non-ASCII character right after a backslash and whitespace in a multi-line string");
    // Whitespace after the backslash and no line break: toml++ trims it all
    // the same (the manifest fuzzer's later finding, U+FECB there).
    CHECK(flaw_of("\"\"\"s\\ \xef\xbb\x8b \\") ==
          "1: a non-ASCII character right after a backslash and whitespace in a multi-line string");
    CHECK(flaw_of("s = \"\"\"a\\\t \xc3\xa9\"\"\"\n") ==
          "1: a non-ASCII character right after a backslash and whitespace in a multi-line string");
    CHECK(flaw_of("s = \"\"\"\\\xef\xbb\xb7\"\"\"\n") ==
          "1: a non-ASCII character right after a backslash in a string (no escape is one)");
    CHECK(flaw_of(std::string("a = 1\0\n", 7)) == "1: a control character outside a string (TOML allows none)");
}
