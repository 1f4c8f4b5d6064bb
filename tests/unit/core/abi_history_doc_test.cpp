// docs/plugin-abi.md shows the compatibility table oms/abi_history.hpp holds:
// every row, word for word, so the promise users read is the one the host
// implements.
#include <oms/abi_history.hpp>

#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>
#include <string>

TEST_CASE("every row of the ABI compatibility table is in docs/plugin-abi.md") {
    std::ifstream in(std::string(OMS_SOURCE_DIR) + "/docs/plugin-abi.md");
    REQUIRE(in);
    std::stringstream text;
    text << in.rdbuf();
    for (const oms::abi::Addition& row : oms::abi::kAdditions) {
        const std::string line = "| 1." + std::to_string(row.minor) + " | " + row.what + " | " + row.older_side + " |";
        INFO(line);
        CHECK(text.str().find(line + "\n") != std::string::npos);
    }
}
