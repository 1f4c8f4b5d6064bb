#include "oms/core/verify_plan.hpp"

#include "oms/core/error.hpp"
#include "oms/core/paths.hpp"
#include "oms/core/protected_folders.hpp"

#include <oms/path.hpp>

#include <unistd.h>

#include <boost/dll/runtime_symbol_info.hpp>

#include <oms/abi_history.hpp>

#include <algorithm>
#include <optional>

namespace oms::core {

namespace {

std::vector<std::string> split_blanks(const std::string& text) {
    std::vector<std::string> out;
    std::string word;
    for (char c : text) {
        if (c == ' ' || c == '\t' || c == '\n') {
            if (!word.empty()) out.push_back(word);
            word.clear();
        } else {
            word += c;
        }
    }
    if (!word.empty()) out.push_back(word);
    return out;
}

std::string with_port(std::string arg, uint16_t port) {
    const std::string mark = "{port}";
    for (size_t at; (at = arg.find(mark)) != std::string::npos;) arg.replace(at, mark.size(), std::to_string(port));
    return arg;
}

uint16_t checked_port(int64_t value, const std::string& where) {
    if (value < 1 || value > 65535) throw UserError(kExitConfig, where + ": the Surfnet port must be 1..65535");
    return static_cast<uint16_t>(value);
}

}  // namespace

const Schema& verify_schema() {
    static const Schema schema = {
        {"surfnet_cmd", {OMS_CONFIG_STRING_ARRAY, false,
                         "the offline Surfnet `oms verify` starts next to the check; \"{port}\" is replaced by its port"}},
        {"surfnet_port", {OMS_CONFIG_INTEGER, false, "its port (default: [plugin.network] surfnet_port, else 8899)"}},
        {"surfnet_wait_ms", {OMS_CONFIG_INTEGER, false, "how long to wait for the Surfnet's port (default 15000)"}},
        {"inputs", {OMS_CONFIG_STRING_ARRAY, false,
                    "files and folders (relative to the worktree) the snapshot holds instead of git's tracked files"}},
        {"max_snapshot_bytes", {OMS_CONFIG_INTEGER, false,
                                "the most the snapshot may hold, in bytes (default 4294967296: 4 GiB)"}},
    };
    return schema;
}

VerifySettings read_verify_settings(const Config& config, const std::string& surfnet_cmd_flag, int port_flag,
                                    const std::vector<std::string>& inputs_flag) {
    VerifySettings settings;
    if (port_flag != 0) {
        settings.port = checked_port(port_flag, "--surfnet-port");
    } else if (const ConfigValue* value = config.get("verify", "surfnet_port")) {
        settings.port = checked_port(value->integer, value->where + ": verify.surfnet_port");
    } else if (const ConfigValue* network = config.get("plugin.network", "surfnet_port")) {
        settings.port = checked_port(network->integer, network->where + ": plugin.network.surfnet_port");
    }
    if (const ConfigValue* value = config.get("verify", "surfnet_wait_ms"))
        settings.wait_ms = static_cast<int>(std::clamp<int64_t>(value->integer, 100, 600000));
    std::vector<std::string> argv =
        surfnet_cmd_flag.empty() ? config.strings("verify", "surfnet_cmd") : split_blanks(surfnet_cmd_flag);
    if (argv.empty() || argv[0].empty())
        throw UserError(kExitUsage, "oms verify: no Surfnet command: set [verify] surfnet_cmd in your config or pass "
                                    "--surfnet-cmd (see docs/user-guide.md, \"oms verify\")");
    for (auto& arg : argv) settings.surfnet_argv.push_back(with_port(arg, settings.port));
    settings.inputs = inputs_flag.empty() ? config.strings("verify", "inputs") : inputs_flag;
    if (const ConfigValue* value = config.get("verify", "max_snapshot_bytes")) {
        if (value->integer <= 0)
            throw UserError(kExitConfig, "config error: " + value->where +
                                             ": key 'verify.max_snapshot_bytes': must be a positive number of bytes");
        settings.max_snapshot_bytes = static_cast<uint64_t>(value->integer);
    }
    return settings;
}

namespace {

VerifyPlan refused_plan(std::string why) { return VerifyPlan{{VerifyNetwork::unsupported, std::move(why)}, {}, false, nullptr}; }

std::optional<VerifyNetwork> declared_network(uint32_t network) {
    switch (network) {
    case OMS_VERIFY_NETWORK_PRIVATE_LOOPBACK: return VerifyNetwork::private_loopback;
    case OMS_VERIFY_NETWORK_HOST_PORT: return VerifyNetwork::host_port;
    case OMS_VERIFY_NETWORK_UNCONFINED: return VerifyNetwork::unconfined;
    default: return std::nullopt;
    }
}

// Without a plan: a backend that confines nothing is said as it is (and
// needs --yes); any other could reach anything for all oms knows.
VerifyPlan default_plan(uint32_t backend_flags, const std::string& name, uint16_t port) {
    if (backend_flags & OMS_BACKEND_NEEDS_APPROVAL)
        return VerifyPlan{{VerifyNetwork::unconfined,
                           "none: the backend '" + name + "' confines nothing (it declares no verify plan, " +
                               OMS_EXTENSION_VERIFY_PLAN + "); the check reaches every host port (the Surfnet's is " +
                               std::to_string(port) + ") and the network, and reads your live files"},
                          {}, false, nullptr};
    return refused_plan("the backend '" + name + "' declares no verify plan (" OMS_EXTENSION_VERIFY_PLAN
                        "), so oms verify cannot promise the check reaches only its Surfnet");
}

}  // namespace

VerifyPlan verify_plan_from(const oms_verify_plan* declared, uint32_t backend_flags, const std::string& backend_name,
                            uint16_t port) {
    if (!declared) return default_plan(backend_flags, backend_name, port);
    const std::string named = "the backend '" + backend_name + "' declares a verify plan (" OMS_EXTENSION_VERIFY_PLAN ") ";
    if (declared->struct_size < OMS_ABI_END_OF(oms_verify_plan, check)) return refused_plan(named + "that is too short");
    const std::optional<VerifyNetwork> network = declared_network(declared->network);
    if (!network)
        return refused_plan(named + "with a network this oms does not know (" + std::to_string(declared->network) +
                            "), so oms verify cannot promise the check reaches only its Surfnet");
    if (declared->flags & ~OMS_VERIFY_FLAGS_1)
        return refused_plan(named + "with flags this oms does not know (" + std::to_string(declared->flags) + ")");
    if (!declared->network_text || !*declared->network_text) return refused_plan(named + "without its network text");
    VerifyPlan plan{{*network, with_port(declared->network_text, port)}, {},
                    (declared->flags & OMS_VERIFY_OUTPUT_TO_WORKTREE_OWNER) != 0, declared->check};
    for (size_t i = 0; i < declared->launcher.count; ++i) {
        const char* arg = declared->launcher.items[i];
        if (!arg) return refused_plan(named + "with a NULL launcher argument");
        plan.launcher.emplace_back(arg);
    }
    if (!plan.launcher.empty() && plan.launcher[0].empty()) return refused_plan(named + "with an empty launcher");
    return plan;
}

VerifyPlan verify_plan_of(const PluginRecord& record, const PluginInstance& instance, uint16_t port) {
    const oms_backend_api* api = record.backend();
    const oms_verify_plan* declared = nullptr;
    if (OMS_ABI_HAS_FIELD(api->struct_size, oms_backend_api, get_extension) && api->get_extension)
        declared = static_cast<const oms_verify_plan*>(api->get_extension(instance.handle(), OMS_EXTENSION_VERIFY_PLAN));
    return verify_plan_from(declared, api->flags, record.id, port);
}

std::optional<std::string> verify_plan_broken(const VerifyPlan& plan, void* instance) {
    if (!plan.check) return std::nullopt;
    char message[1024] = {0};
    oms_error error{message, sizeof message};
    if (plan.check(instance, &error) == OMS_OK) return std::nullopt;
    return message[0] ? std::string(message) : "its configuration breaks its verify plan";
}

void require_verify_network(const VerifyPlan& plan, void* instance, const std::string& backend_name) {
    if (const auto broken = verify_plan_broken(plan, instance))
        throw UserError(kExitRefused, "oms verify: " + backend_name + ": " + *broken + ". Nothing ran.");
}

std::vector<std::string> verify_launcher(const VerifyPlan& plan) {
    if (!plan.launcher.empty()) return plan.launcher;
    return {boost::dll::program_location().string(), "__verify-launch"};
}

void narrow_policy_for_verify(Policy& policy, const std::string& live_worktree, const std::string& snapshot,
                              const VerifyPlan& plan, const std::string& surfnet_program, uint16_t port) {
    const std::string real_snapshot = resolved_path(snapshot);
    const std::string real_live = resolved_path(live_worktree);
    if (sdk::path::is_inside(real_snapshot, real_live))
        throw UserError(kExitRefused, "oms verify: the snapshot folder " + snapshot + " would lie inside the worktree " +
                                          live_worktree + " (TMPDIR points there?); refusing to run. Nothing ran.");
    std::vector<PolicyRule> kept;
    for (PolicyRule& rule : policy.rules) {
        const bool loopback = is_port_rule(rule) || rule.kind == OMS_RULE_NET_LISTEN_LOOPBACK;
        const bool snapshot_write = rule.kind == OMS_RULE_WRITE_ALLOW_TREE &&
                                    (rule.value == snapshot || resolved_path(rule.value) == real_snapshot);
        if (loopback || snapshot_write) continue;
        kept.push_back(std::move(rule));
    }
    // Read-only even where a write root holds it (the run's temp folder lies
    // in /tmp): backends apply a write deny over their write roots (landlock
    // with a read-only bind mount, seatbelt with a later deny).
    kept.push_back(PolicyRule{OMS_RULE_WRITE_DENY, real_snapshot, 0, "oms verify: the snapshot is read-only"});
    // oms's own launcher is oms itself: readable and executable even when it
    // lies under the read-denied HOME (~/.local/bin/oms run by its path). A
    // backend's own launcher lives inside its sandbox.
    if (plan.launcher.empty())
        kept.push_back(PolicyRule{OMS_RULE_READ_ALLOW_TREE, resolved_path(boost::dll::program_location().string()), 0,
                                  "oms verify: the launcher (oms's executable)"});
    // The live worktree is hidden even where reads are open (outside HOME).
    kept.push_back(PolicyRule{OMS_RULE_READ_DENY, real_live, 0, "oms verify: the live worktree (the check sees the "
                                                                "snapshot)"});
    if (plan.network.kind == VerifyNetwork::host_port) {
        kept.push_back(PolicyRule{OMS_RULE_NET_CONNECT_LOOPBACK, "", port, "oms verify: the check's Surfnet"});
        kept.push_back(PolicyRule{OMS_RULE_NET_LISTEN_LOOPBACK, surfnet_program, port, "oms verify: the Surfnet"});
    }
    policy.rules = std::move(kept);
}

std::string resolve_program(const std::string& name) {
    if (name.find('/') != std::string::npos) return canonical_or_absolute(name);
    for (const std::string& folder : split_list(env_value("PATH").value_or("/usr/bin:/bin"), ':')) {
        if (folder.empty()) continue;
        std::string candidate = folder + "/" + name;
        if (access(candidate.c_str(), X_OK) == 0) return canonical_or_absolute(candidate);
    }
    return name;
}

std::string verify_doctor_line(const Config& config, const PluginRecord& record, const PluginInstance& instance) {
    uint16_t port = 8899;
    std::string surfnet = "no Surfnet command set ([verify] surfnet_cmd)";
    try {
        const VerifySettings settings = read_verify_settings(config, "", 0, {});
        port = settings.port;
        surfnet = "Surfnet: " + settings.surfnet_argv[0];
    } catch (const UserError&) {
        if (const ConfigValue* value = config.get("plugin.network", "surfnet_port"))
            if (value->integer >= 1 && value->integer <= 65535) port = static_cast<uint16_t>(value->integer);
    }
    const VerifyPlan plan = verify_plan_of(record, instance, port);
    const NetworkChoice& network = plan.network;
    // The backend's own line when this machine or its config breaks the plan.
    if (network.kind != VerifyNetwork::unsupported)
        if (const auto broken = verify_plan_broken(plan, instance.handle())) return "verify: refused: " + *broken;
    const char* state = network.kind == VerifyNetwork::unsupported ? "refused: "
                        : network.kind == VerifyNetwork::unconfined ? "only with --yes: "
                                                                    : "";
    return "verify: " + std::string(state) + network.text + "; " + surfnet +
           "; the check sees a read-only snapshot (oms verify --plan shows it)";
}

}  // namespace oms::core
