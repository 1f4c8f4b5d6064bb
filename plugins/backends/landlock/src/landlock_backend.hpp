// The `landlock` backend: Linux host mode under Landlock, seccomp and
// private mount/network namespaces.
#pragma once
#include "kernel_features.hpp"
#include "sandbox_plan.hpp"
#include "seccomp_program.hpp"
#include "start_probe.hpp"

#include <oms/sdk.hpp>

#include <memory>
#include <optional>

namespace oms::landlock {

class ConfinedRun;
class TaskNetwork;

class LandlockBackend : public oms::sdk::BackendPlugin {
public:
    static constexpr const char* id = "landlock";
    static constexpr const char* version = OMS_VERSION;
    static constexpr const char* summary =
        "Linux host mode confined by Landlock, seccomp and private mount/network namespaces";
    static constexpr uint32_t flags = OMS_BACKEND_CONFINES | OMS_BACKEND_SHARES_PROCESS_GROUP;
    static constexpr uint32_t strength = 100;
    // Every kind of ABI 1.1, and 1.4's run port (relayed like a loopback port: the namespace is per run).
    static constexpr uint64_t rule_kinds =
        oms::abi::rule_kinds_of_minor(1) | OMS_RULE_BIT(OMS_RULE_NET_CONNECT_RUN_PORT) |
        OMS_RULE_BIT(OMS_RULE_NET_PUBLISH_LOOPBACK);
    static constexpr uint32_t explain_model = OMS_EXPLAIN_MODEL_LANDLOCK;
    // oms verify: a policy without loopback rules runs in its own network
    // namespace, which the check shares with its Surfnet only.
    static constexpr uint32_t verify_network = OMS_VERIFY_NETWORK_PRIVATE_LOOPBACK;
    static constexpr const char* verify_network_text =
        "private network namespace: the Surfnet listens on the check's own 127.0.0.1:{port}; no host port is "
        "relayed (no Surfnet relay), so no host port at all is reachable";
    static constexpr const char* platforms = "linux";
    static const oms_config_key* config_keys();
    static size_t config_key_count();

    explicit LandlockBackend(oms::sdk::Host host);
    void probe(const oms::sdk::Report& report) override;
    void render(const oms::sdk::Context& context, const oms::sdk::Policy& policy,
                const oms::sdk::Report& report) override;
    std::unique_ptr<oms::sdk::Run> spawn(const oms::sdk::Context& context, const oms::sdk::Policy& policy,
                                         oms_stdio stdio) override;
    // `oms task end`: the holders of the worktree's networks leave.
    void end_task(const oms::sdk::Context& context, const oms::sdk::Report& report) override;
    // verify_network promises the check a loopback of its own: only a rung
    // with a network namespace (rungs 1 and 2) keeps that promise.
    void check_verify() const override;

private:
    KernelFeatures features_;
    SeccompProgram seccomp_;              // a run on the host's network (trusted listener)
    SeccompProgram seccomp_own_network_;  // a run in its own network namespace: UDP on its lo too
    const SeccompProgram& seccomp_for(const Plan& plan) const {
        return plan.own_network ? seccomp_own_network_ : seccomp_;
    }
    std::unique_ptr<ConfinedRun> launch_confined(const Plan& plan, oms_stdio stdio, TaskNetwork* network);
    std::unique_ptr<ConfinedRun> launch_in_task_network(const Plan& plan, oms_stdio stdio, const std::string& state_dir,
                                                        const std::string& worktree);
    PlanOptions options_;
    long task_network_idle_ = 0;  // [plugin.landlock] task_network_idle (task_network.hpp)
    SeccompProgram rung3_filter_;  // rung 3's second filter (rung3_filter.hpp)
    std::optional<StartVerdict> start_verdict_;  // the rung a confined start reaches here (start_probe.hpp)
    const StartVerdict& start_verdict();
    StartVerdict find_rung() const;
    StartVerdict find_rung_without_landlock() const;
    void fit_to_rung(Plan& plan);
    std::vector<std::string> landlock_gaps(bool unenforced);

    // Refuses (OMS_ERR_UNSUPPORTED) what this kernel cannot enforce, unless
    // best effort; nothing on rung 2, where the mounts carry the file rules.
    void check_enforceable(const oms::sdk::Context& context);
};

}  // namespace oms::landlock
