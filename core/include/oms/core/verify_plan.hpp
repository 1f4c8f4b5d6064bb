// What `oms verify` gives the pinned check on each backend: the network it
// gets (its own Surfnet and nothing else, or a refusal), the policy narrowed
// to the snapshot, and the [verify] config table.
#pragma once
#include "oms/core/config.hpp"
#include "oms/core/plugin.hpp"
#include "oms/core/policy.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace oms::core {

enum class VerifyNetwork {
    private_loopback,  // the check and its Surfnet share a network namespace with no host port (landlock, docker)
    host_port,         // the Surfnet listens on the host's loopback; only its port is open (seatbelt, rendered)
    unconfined,        // no network confinement at all (host-null, with --yes only)
    unsupported,       // refused: the backend declares no plan this oms can keep
};

struct VerifySettings {
    std::vector<std::string> surfnet_argv;  // with {port} already replaced
    uint16_t port = 8899;
    int wait_ms = 15000;                    // for the Surfnet's port to answer
    std::vector<std::string> inputs;        // configured list; empty: the git index's tracked files
    uint64_t max_snapshot_bytes = uint64_t{4} << 30;  // a tracked file a command made huge stops the copy
};

struct NetworkChoice {
    VerifyNetwork kind;
    std::string text;  // one line for the plan, or why it is refused
};

// The [verify] table's keys.
const Schema& verify_schema();

// From flags over [verify] over defaults. `surfnet_cmd_flag` is split on
// blanks (no shell); the port defaults to [plugin.network] surfnet_port.
VerifySettings read_verify_settings(const Config& config, const std::string& surfnet_cmd_flag, int port_flag,
                                    const std::vector<std::string>& inputs_flag);

// What the backend's oms.verify-plan/1 extension says, or the documented
// default without it. Nothing here depends on the backend's id.
struct VerifyPlan {
    NetworkChoice network;              // its text with the port filled in
    std::vector<std::string> launcher;  // inside the sandbox; empty: oms's own `__verify-launch`
    bool output_to_worktree_owner = false;
    oms_status (*check)(void* instance, oms_error* error) = nullptr;
};

// From a declared plan (nullptr: none) and the backend's OMS_BACKEND_*
// flags: none gives `unconfined` to a backend that needs approval and
// `unsupported` to any other; an unknown network or flag, or a struct
// shorter than oms.verify-plan/1's, gives `unsupported`. `backend_name`
// only names the backend in the texts.
VerifyPlan verify_plan_from(const oms_verify_plan* declared, uint32_t backend_flags, const std::string& backend_name,
                            uint16_t port);

// The plan of a loaded backend, asked through get_extension.
VerifyPlan verify_plan_of(const PluginRecord& record, const PluginInstance& instance, uint16_t port);

// Throws (fail closed, nothing ran) when the plan's check says this
// instance's configuration breaks its network (docker's network setting).
// The backend's line when its plan's check says this machine or its
// configuration breaks the plan's promise; nullopt when it holds.
std::optional<std::string> verify_plan_broken(const VerifyPlan& plan, void* instance);
void require_verify_network(const VerifyPlan& plan, void* instance, const std::string& backend_name);

// The command that starts the Surfnet and runs the check inside the sandbox
// (its arguments follow): the plan's launcher, else `oms __verify-launch`.
std::vector<std::string> verify_launcher(const VerifyPlan& plan);

// The policy the check runs under: the snapshot is no write root (and is
// write-denied), the live worktree is read-denied, oms's executable is
// readable when it is the launcher, and the loopback rules
// are replaced by the plan's (none on a private loopback: no port of the
// host is relayed; the Surfnet's port alone on the host's).
void narrow_policy_for_verify(Policy& policy, const std::string& live_worktree, const std::string& snapshot,
                              const VerifyPlan& plan, const std::string& surfnet_program, uint16_t port);

// One line for oms doctor: what oms verify would give on this backend.
std::string verify_doctor_line(const Config& config, const PluginRecord& record, const PluginInstance& instance);

// argv[0] of the Surfnet command as a path, found on PATH when it has no slash.
std::string resolve_program(const std::string& name);

}  // namespace oms::core
