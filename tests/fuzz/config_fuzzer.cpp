// The config layer's own checks (core/src/config) against any file text:
// a worktree's .oms/config.toml lies where commands write, and a user's
// file is hand-written. The text is read as each layer over a fixed
// defaults file, then resolved as a session resolves it: the core's table,
// a plugin table with a key of every type, the pinned-address map, the
// known tables. Properties: no crash; bad text is one UserError that says
// "config error" and names the file, never another exception.
#include "oms/core/config.hpp"

#include "oms/core/error.hpp"

#include "fuzz_support.hpp"

using namespace oms::core;

namespace {

const Schema& plugin_schema() {
    static const Schema schema = {
        {"text", {OMS_CONFIG_STRING, false, ""}},         {"flag", {OMS_CONFIG_BOOLEAN, true, ""}},
        {"count", {OMS_CONFIG_INTEGER, false, ""}},       {"names", {OMS_CONFIG_STRING_ARRAY, true, ""}},
        {"ports", {OMS_CONFIG_INTEGER_ARRAY, false, ""}},
    };
    return schema;
}

void read_as(ConfigLayer layer, const std::string& defaults, const std::string& file) {
    Config config;
    config.add_file(defaults, ConfigLayer::Defaults);
    config.add_file(file, layer);
    config.resolve("sandbox", core_schema());
    config.resolve("plugin.fuzz", plugin_schema());
    config.resolve_string_map("network", "pinned_addresses");
    config.check_tables({"sandbox", "network", "network.pinned_addresses", "plugin.fuzz"});
    for (const auto& [name, value] : config.string_map("network", "pinned_addresses"))
        OMS_FUZZ_REQUIRE(value.type == OMS_CONFIG_STRING);
    (void)config.strings("sandbox", "plugin_paths");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    static oms::fuzz::InputFile defaults("config-defaults");
    static oms::fuzz::InputFile file("config");
    static const bool written = !defaults
                                     .write(
                                         "[sandbox]\nbackend = \"auto\"\n[plugin.fuzz]\nnames = [\"a\"]\n"
                                         "[network.pinned_addresses]\n\"pkg.test\" = \"127.0.0.1\"\n")
                                     .empty();
    OMS_FUZZ_REQUIRE(written);
    file.write(oms::fuzz::as_text(data, size));
    for (ConfigLayer layer : {ConfigLayer::User, ConfigLayer::Worktree}) {
        try {
            read_as(layer, defaults.path(), file.path());
        } catch (const UserError& error) {
            const std::string message = error.what();
            OMS_FUZZ_REQUIRE(message.find("config error") != std::string::npos);
            OMS_FUZZ_REQUIRE(message.find(file.path()) != std::string::npos);
        }
    }
    return 0;
}
