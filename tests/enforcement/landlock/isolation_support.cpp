#include "isolation_support.hpp"

#include <unistd.h>

namespace oms::test {

void use_system_temps(World& world) {
    write_file(world.root / "xdg-config/oms/config.toml",
               "[plugin.write-roots]\ntemp_dirs = [\"/tmp\", \"/var/tmp\"]\n");
}

RunOutcome run_with_system_temps(Driver driver, World& world, const std::string& script) {
    use_system_temps(world);
    if (driver == Driver::oms) return run_in_oms(world, script);
    RunOptions options;
    options.extra_rules = {{OMS_RULE_WRITE_ALLOW_TREE, "/tmp"}, {OMS_RULE_WRITE_ALLOW_TREE, "/var/tmp"}};
    return run_in_plugin(world, script, options);
}

std::string unique_mark(const std::string& prefix) {
    static int counter = 0;
    return prefix + "-" + std::to_string(getpid()) + "-" + std::to_string(++counter);
}

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

std::string render_text(ContextBuilder& context, PolicyBuilder& policy) {
    FakeHost host;
    LandlockPlugin plugin(host);
    ReportCollector report;
    ErrorBuffer error;
    REQUIRE(plugin.api().render(plugin.instance(), context.build(), policy.build(), report.sink(), error.get()) ==
            OMS_OK);
    return report.text();
}

}  // namespace oms::test
