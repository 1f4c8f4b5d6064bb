// The docker backend: runs each command in a hardened container from a
// pinned image, either one container per command or (default) one warm
// container per task with one exec per command.
#pragma once
#include "container_plan.hpp"
#include "engine_client.hpp"
#include "manifest.hpp"
#include "relayed_run.hpp"
#include "run_inputs.hpp"
#include "surfnet_plan.hpp"
#include "settings.hpp"

#include <oms/sdk.hpp>

#include <memory>
#include <optional>
#include <string>

namespace oms::docker {

class DockerBackend : public sdk::BackendPlugin {
public:
    static constexpr const char* id = "docker";
    static constexpr const char* version = OMS_VERSION;
    static constexpr const char* summary =
        "Docker container from a pinned image: read-only root, no capabilities, non-root, limits, no network";
    static constexpr uint32_t flags = OMS_BACKEND_CONFINES;
    static constexpr uint32_t strength = 50;
    // Every kind of ABI 1.1 but WRITE_SCRATCH_TREE (no per-run layer: oms
    // lowers it into WRITE_DENY), 1.4's run port (a warm container holds it
    // for that run's command only, so it is no part of the container) and
    // 1.5's published port (host_publisher.hpp; a one-shot container says it
    // is not published).
    static constexpr uint64_t rule_kinds = (oms::abi::rule_kinds_of_minor(1) &
                                            ~OMS_RULE_BIT(OMS_RULE_WRITE_SCRATCH_TREE)) |
                                           OMS_RULE_BIT(OMS_RULE_NET_CONNECT_RUN_PORT) |
                                           OMS_RULE_BIT(OMS_RULE_NET_PUBLISH_LOOPBACK);
    static constexpr uint32_t explain_model = OMS_EXPLAIN_MODEL_CONTAINER;
    // oms verify: the container's own network, with the runner's launcher
    // (static, so it runs in any image, where oms's executable cannot), as
    // the worktree's owner (never root).
    static constexpr uint32_t verify_network = OMS_VERIFY_NETWORK_PRIVATE_LOOPBACK;
    static constexpr const char* verify_network_text =
        "the container's own network (--network none): the Surfnet listens on the container's 127.0.0.1:{port}; "
        "no host port is relayed (no Surfnet relay), so no host port at all is reachable";
    static constexpr const char* verify_launcher[] = {"/.oms/runner", "--verify-launch"};
    static constexpr uint32_t verify_flags = OMS_VERIFY_OUTPUT_TO_WORKTREE_OWNER;
    static constexpr const char* platforms = "linux,macos";
    static const oms_config_key* config_keys();
    static size_t config_key_count();

    explicit DockerBackend(sdk::Host host);
    void probe(const sdk::Report& report) override;
    void render(const sdk::Context& context, const sdk::Policy& policy, const sdk::Report& report) override;
    std::unique_ptr<sdk::Run> spawn(const sdk::Context& context, const sdk::Policy& policy, oms_stdio stdio) override;
    void end_task(const sdk::Context& context, const sdk::Report& report) override;
    // The verify plan's network holds only on network "none".
    void check_verify() const override;

private:
    Settings settings_;
    std::string config_error_;  // a refused configuration, reported by every call

    struct Resolved {
        Manifest manifest;
        std::string user;    // uid:gid (configured, else the worktree owner's)
        std::string socket;  // Engine API socket
        std::string cli;     // absolute path of the docker CLI
    };
    Resolved resolve(oms_status failure, const RunInputs& in) const;
    std::string require_socket(oms_status failure) const;
    std::unique_ptr<sdk::Run> spawn_warm(const Resolved& r, const RunInputs& in, const SurfnetPlan& net,
                                         const EngineClient& client, bool tty, oms_stdio stdio);
    // A warm container's relays: the container's fixed ports (shared by the
    // task's runs), and the run's own (for its command alone); null when none.
    std::unique_ptr<RelayedRun> shared_relay(const RunInputs& in, const SurfnetPlan& net,
                                             const std::string& container) const;
    std::unique_ptr<RelayedRun> own_relay(const RunInputs& in, const SurfnetPlan& net,
                                          const std::string& container) const;
    std::unique_ptr<RelayedRun> publisher(const RunInputs& in, const std::string& folder,
                                          const std::optional<std::string>& lend_to) const;
    // One warning a masked file that is no Solana keypair, as every backend
    // says it, once a file (recorded in oms's state folder).
    void log_keypair_notices(const ContainerPlan& plan, const std::string& state_dir) const {
        const auto lines = sdk::keypair_notice_lines(
            plan.keypair_matches, plan.keypair_suffixes,
            "the docker backend hides every match (it grants no keypair_exempt): rename it, or run under a backend "
            "that grants keypair_exempt",
            state_dir);
        for (const std::string& line : lines) this->host().log(OMS_LOG_WARN, line);
    }
};

}  // namespace oms::docker
