// What counts as a Solana keypair for the look-alike notice: a JSON array of
// exactly 64 numbers from 0 to 255, any whitespace around them.
#include <oms/keypair_shape.hpp>

#include <catch2/catch.hpp>

#include <string>

using oms::sdk::keypair_shape_of;
using oms::sdk::KeypairShape;

namespace {

std::string bytes_array(int count, const std::string& separator = ",", int value = 7) {
    std::string text = "[";
    for (int i = 0; i < count; ++i) text += (i ? separator : "") + std::to_string(value);
    return text + "]";
}

}  // namespace

TEST_CASE("a JSON array of 64 bytes is a keypair, compact or pretty-printed", "[landlock][keypair-shape]") {
    CHECK(keypair_shape_of(bytes_array(64)) == KeypairShape::keypair);
    CHECK(keypair_shape_of(bytes_array(64, ",", 255) + "\n") == KeypairShape::keypair);
    CHECK(keypair_shape_of("  " + bytes_array(64, ",\n  ", 0) + "\n") == KeypairShape::keypair);
}

TEST_CASE("anything else is not a keypair", "[landlock][keypair-shape]") {
    CHECK(keypair_shape_of("") == KeypairShape::not_keypair);
    CHECK(keypair_shape_of("{\"hello\": \"world\"}") == KeypairShape::not_keypair);
    CHECK(keypair_shape_of(bytes_array(63)) == KeypairShape::not_keypair);
    CHECK(keypair_shape_of(bytes_array(65)) == KeypairShape::not_keypair);
    CHECK(keypair_shape_of(bytes_array(64, ",", 256)) == KeypairShape::not_keypair);
    CHECK(keypair_shape_of(bytes_array(64, ",", -1)) == KeypairShape::not_keypair);
    CHECK(keypair_shape_of(bytes_array(64) + ",") == KeypairShape::not_keypair);
    CHECK(keypair_shape_of(bytes_array(64, ";")) == KeypairShape::not_keypair);
    CHECK(keypair_shape_of("[" + std::string("07") + std::string(bytes_array(63)).replace(0, 1, ",")) ==
          KeypairShape::not_keypair);  // a leading zero
}
