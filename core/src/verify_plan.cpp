#include "oms/core/verify_plan.hpp"

#include "oms/core/error.hpp"
#include "oms/core/paths.hpp"
#include "oms/core/protected_folders.hpp"

#include <unistd.h>

#include <boost/dll/runtime_symbol_info.hpp>

#include <algorithm>

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

NetworkChoice network_for_backend(const std::string& backend_id, uint16_t port) {
    const std::string p = std::to_string(port);
    if (backend_id == "landlock")
        return {VerifyNetwork::private_loopback,
                "private network namespace: the Surfnet listens on the check's own 127.0.0.1:" + p +
                    "; no host port is relayed (no Surfnet relay), so no host port at all is reachable"};
    if (backend_id == "docker")
        return {VerifyNetwork::private_loopback,
                "the container's own network (--network none): the Surfnet listens on the container's 127.0.0.1:" +
                    p + "; no host port is relayed (no Surfnet relay), so no host port at all is reachable"};
    if (backend_id == "seatbelt")
        return {VerifyNetwork::host_port,
                "the Surfnet listens on the host's 127.0.0.1:" + p + " (the port must be free before the start: the "
                "launcher refuses to run the check when something already answers there); the profile allows "
                "outbound to that port only and listening on it (to every process of the check: Seatbelt has no "
                "per-binary network filter); no other host port"};
    if (backend_id == "host-null")
        return {VerifyNetwork::unconfined,
                "none: OMS host mode has NO sandbox here; the check reaches every host port and the network, and "
                "reads your live files"};
    return {VerifyNetwork::unsupported, "oms verify does not know the network of the backend '" + backend_id +
                                            "', so it cannot promise the check reaches only its Surfnet"};
}

void require_verify_network(const Config& config, const std::string& backend_id) {
    if (backend_id != "docker") return;
    const ConfigValue* network = config.get("plugin.docker", "network");
    if (!network || network->text == "none") return;
    throw UserError(kExitRefused, "oms verify: " + network->where + ": [plugin.docker] network = \"" + network->text +
                                      "\": the check's container would reach that network, not only its own Surfnet; "
                                      "oms verify needs network \"none\". Nothing ran.");
}

std::vector<std::string> verify_launcher(const std::string& backend_id) {
    // The docker backend's runner, mounted read-only at /.oms/runner in every
    // container it starts, carries the same launcher: it is static, so it runs
    // in any image, where oms's own executable (dynamic, on the host) cannot.
    if (backend_id == "docker") return {"/.oms/runner", "--verify-launch"};
    return {boost::dll::program_location().string(), "__verify-launch"};
}

void narrow_policy_for_verify(Policy& policy, const std::string& live_worktree, const std::string& snapshot,
                              const NetworkChoice& network, const std::string& surfnet_program, uint16_t port) {
    const std::string real_snapshot = resolved_path(snapshot);
    const std::string real_live = resolved_path(live_worktree);
    if (is_within(real_snapshot, real_live))
        throw UserError(kExitRefused, "oms verify: the snapshot folder " + snapshot + " would lie inside the worktree " +
                                          live_worktree + " (TMPDIR points there?); refusing to run. Nothing ran.");
    std::vector<PolicyRule> kept;
    for (PolicyRule& rule : policy.rules) {
        const bool loopback = rule.kind == OMS_RULE_NET_CONNECT_LOOPBACK || rule.kind == OMS_RULE_NET_LISTEN_LOOPBACK;
        const bool snapshot_write = rule.kind == OMS_RULE_WRITE_ALLOW_TREE &&
                                    (rule.value == snapshot || resolved_path(rule.value) == real_snapshot);
        if (loopback || snapshot_write) continue;
        kept.push_back(std::move(rule));
    }
    // Read-only even where a write root holds it (the run's temp folder lies
    // in /tmp): backends apply a write deny over their write roots (landlock
    // with a read-only bind mount, seatbelt with a later deny).
    kept.push_back(PolicyRule{OMS_RULE_WRITE_DENY, real_snapshot, 0, "oms verify: the snapshot is read-only"});
    // The launcher is oms itself: readable and executable even when it lies
    // under the read-denied HOME (~/.local/bin/oms run by its path).
    kept.push_back(PolicyRule{OMS_RULE_READ_ALLOW_TREE, resolved_path(boost::dll::program_location().string()), 0,
                              "oms verify: the launcher (oms's executable)"});
    // The live worktree is hidden even where reads are open (outside HOME).
    kept.push_back(PolicyRule{OMS_RULE_READ_DENY, real_live, 0, "oms verify: the live worktree (the check sees the "
                                                                "snapshot)"});
    if (network.kind == VerifyNetwork::host_port) {
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

std::string verify_doctor_line(const Config& config, const std::string& backend_id) {
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
    const NetworkChoice network = network_for_backend(backend_id, port);
    const char* state = network.kind == VerifyNetwork::unsupported ? "refused: "
                        : network.kind == VerifyNetwork::unconfined ? "only with --yes: "
                                                                    : "";
    return "verify: " + std::string(state) + network.text + "; " + surfnet +
           "; the check sees a read-only snapshot (oms verify --plan shows it)";
}

}  // namespace oms::core
