// oms plugins: the plugin table alone, or with --keys every config key.
#include "oms/core/backend.hpp"
#include "oms/core/cli.hpp"
#include "oms/core/cli_options.hpp"
#include "oms/core/egress_rules.hpp"
#include "oms/core/error.hpp"
#include "oms/core/json.hpp"
#include "oms/core/plugin_listing.hpp"
#include "oms/core/session.hpp"
#include "oms/core/verify_plan.hpp"

#include <cstdio>

namespace oms::core {

namespace {

// `oms plugins --keys`: every config key each loaded plugin declares, and the
// core's own [sandbox], [verify] and [network] tables, as the reference of what a config file may say.
void print_keys(const Session& session) {
    auto print_table = [](const std::string& table, const Schema& schema) {
        std::printf("[%s]\n", table.c_str());
        for (auto& [name, spec] : schema)
            std::printf("  %-16s %-18s %-8s %s\n", name.c_str(), type_name(spec.type),
                        spec.narrows ? "narrows" : "-", spec.description.c_str());
    };
    print_table("sandbox", core_schema());
    print_table("verify", verify_schema());
    print_table("network", network_schema());
    std::printf("  %-16s %-18s %-8s %s\n", "pinned_addresses", "table of strings", "-",
                "host name = \"numeric address\": the proxy connects there without resolving the name; the only way "
                "a name may reach a loopback or private address");
    for (auto& record : session.registry().records())
        if (record.status == PluginStatus::Loaded && !record.schema.empty())
            print_table("plugin." + record.id, record.schema);
}

}  // namespace

int command_plugins(const Args& args) {
    Args rest;
    bool keys = false;
    for (auto& arg : args) {
        if (arg == "--keys")
            keys = true;
        else
            rest.push_back(arg);
    }
    auto options = parse_common_options(rest, "usage: oms plugins [--keys] [options]\n  --keys                print "
                                              "every config key the core and each plugin declare\n\noptions");
    if (!options) return 0;
    Session session(options->worktree);
    if (keys) {
        print_keys(session);
        return 0;
    }
    auto rows = plugin_rows(session.registry(), "", probe_all_backends(session.registry()));
    if (options->json) {
        JsonWriter writer;
        write_plugin_rows(writer, rows);
        std::printf("%s\n", writer.str().c_str());
    } else {
        std::printf("%s", format_plugin_rows(rows).c_str());
    }
    return 0;
}

}  // namespace oms::core
