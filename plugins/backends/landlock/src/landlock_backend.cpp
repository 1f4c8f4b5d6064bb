#include "landlock_backend.hpp"

#include "child_spec.hpp"
#include "denial_audit.hpp"
#include "keypair_notices.hpp"
#include "landlock_only_plan.hpp"
#include "launcher.hpp"
#include "task_network.hpp"
#include "child_steps.hpp"
#include "fresh_dev_plan.hpp"
#include "plan_render.hpp"
#include "policy_values.hpp"
#include "scratch_home_links.hpp"
#include <oms/keypair_walk.hpp>
#include "rung_report.hpp"
#include "start_probe_cache.hpp"
#include "rung3_filter.hpp"

#include <oms/launch_phase.hpp>

namespace oms::landlock {

namespace {

using oms::sdk::Error;

const oms_config_key kKeys[] = {
    {sizeof(oms_config_key), "hide", OMS_CONFIG_STRING_ARRAY, OMS_CONFIG_NARROWS,
     "extra paths covered by an empty read-only file or folder inside the sandbox (added to the daemon "
     "sockets hidden by default)"},
    {sizeof(oms_config_key), "max_abi", OMS_CONFIG_INTEGER, 0,
     "use at most this Landlock ABI version (to check how an older kernel degrades); 0 = all the kernel has"},
    {sizeof(oms_config_key), "scan_keeper", OMS_CONFIG_BOOLEAN, 0,
     "keep a process of yours that watches the searched folders for changes, so a start only looks again at "
     "the folders that changed (default true); false: every start checks every folder itself"},
    {sizeof(oms_config_key), "report_connects", OMS_CONFIG_BOOLEAN, 0,
     "report connects refused off the sandbox's loopback (default true): each connect then waits for the run's "
     "init (a seccomp user notification); false: no such filter, for a command that needs seccomp user "
     "notification itself (the kernel allows one listener per process)"},
    {sizeof(oms_config_key), "task_network_idle", OMS_CONFIG_INTEGER, 0,
     "seconds a task's loopback is kept after its last run ended, so that its next runs share it (default "
     "600); 0: each time no run of the task is running, the next one starts a new loopback"},
};

constexpr long kTaskNetworkIdleSeconds = 600;

std::string joined(const std::vector<std::string>& items) {
    std::string out;
    for (const auto& s : items) out += (out.empty() ? "" : "; ") + s;
    return out;
}

// One line for every folder the keypair search found too deep to walk: it
// is hidden whole, so the run goes on, and the user learns what to delete.
std::string too_deep_notice(const std::vector<std::string>& folders) {
    return "landlock: hidden whole (empty and read-only in this run), nested more than " +
           std::to_string(sdk::kMaxScanDepth) + " folders deep, too deep to search for keypair files: " +
           joined(folders) + " (delete it if nothing needs it)";
}

}  // namespace

const oms_config_key* LandlockBackend::config_keys() { return kKeys; }

void LandlockBackend::end_task(const oms::sdk::Context& context, const oms::sdk::Report&) {
    end_task_networks(std::string(context.state_dir()), std::string(context.worktree()));
}
size_t LandlockBackend::config_key_count() { return sizeof kKeys / sizeof kKeys[0]; }

LandlockBackend::LandlockBackend(oms::sdk::Host host) : BackendPlugin(host) {
    int cap = static_cast<int>(this->host().integer("max_abi").value_or(0));
    features_ = detect_features(cap);
    options_.extra_hidden = default_hidden_sockets();
    for (auto& path : this->host().strings("hide")) options_.extra_hidden.push_back(path);
    options_.scan_keeper = this->host().boolean("scan_keeper").value_or(true);
    options_.report_connects = this->host().boolean("report_connects").value_or(true);
    task_network_idle_ = static_cast<long>(this->host().integer("task_network_idle").value_or(kTaskNetworkIdleSeconds));
    if (task_network_idle_ < 0)
        throw Error(OMS_ERR_INVALID, "[plugin.landlock] task_network_idle: " + std::to_string(task_network_idle_) +
                                         " is not a number of seconds (0 or more)");
    seccomp_ = build_seccomp_program(false, false);
    seccomp_own_network_ = build_seccomp_program(true, options_.report_connects);
    rung3_filter_ = build_rung3_filter();
}

void LandlockBackend::probe(const oms::sdk::Report& report) {
    report.summary(summary_line(features_));
    const StartVerdict& start = start_verdict();
    if (!start.started) throw Error(OMS_ERR_UNAVAILABLE, start.refusal);
    report.settings(settings_line(start.rung));
    report.detail("landlock ABI: " + std::to_string(features_.abi));
    report.detail(std::string("seccomp: ") + (features_.seccomp ? "filter available" : "unavailable"));
    report.detail(rung_line(start.rung, start.above));
    report.detail(guarantees_line(start.rung));
    for (const auto& line : rung_details(start.rung)) report.detail(line);
    if (start.rung != 3)
        report.detail(task_network_idle_ > 0
                          ? "task network: a task's runs share one loopback, kept " +
                                std::to_string(task_network_idle_) +
                                " s after its last run ([plugin.landlock] task_network_idle; oms task end ends it)"
                          : "task network: a task's runs share one loopback while one of them runs "
                            "([plugin.landlock] task_network_idle = 0: not kept between runs)");
    report.detail("start check: a confined `true` started here on this rung (checked once per boot, kernel, user, "
                  "oms build and the confinement around oms; " + start_probe_cache_file() + ")");
    // Only a person reads it, and asking the kernel's audit for its state
    // costs root a kernel thread per question (the audit replies from one):
    // 0.5 to 4 ms of a run's start here.
    if (!report.host_only()) report.detail(denial_report_status(features_.abi));
    for (const auto& line : landlock_gaps(false)) report.missing(line);
    for (const auto& line : rung_gaps(start.rung, features_)) report.missing(line);
    if (!landlock_gaps(true).empty())
        report.warn_once("OMS landlock sandbox is incomplete on this kernel: " + joined(landlock_gaps(true)) +
                         ". Commands are refused unless run with --best-effort.");
}

// Probed once per process, and from the state folder's cache once per
// boot: every run asks (the core probes before it spawns).
const StartVerdict& LandlockBackend::start_verdict() {
    if (!start_verdict_) {
        const std::string settings = "abi " + std::to_string(features_.abi) + " report_connects " +
                                     (options_.report_connects ? "1" : "0");
        start_verdict_ = cached_start_verdict(settings, [this] { return find_rung(); });
    }
    return *start_verdict_;
}

void LandlockBackend::check_verify() const {
    // The core probes before it asks, so the verdict is known here.
    if (start_verdict_ && start_verdict_->started && start_verdict_->rung == 3)
        throw sdk::Error(OMS_ERR_UNSUPPORTED,
                         "rung 3 (Landlock alone: namespaces are refused here) gives the check no network namespace "
                         "of its own, so its Surfnet would listen on the host's loopback, next to every host "
                         "service; run oms verify where the full mode starts (oms doctor says the rung)");
}

// The strongest rung a real start reaches: the full mode, else Landlock
// alone (which needs ABI 4 for its port rules); else one line saying why
// neither starts. On a kernel without Landlock: rung 2 or that line.
StartVerdict LandlockBackend::find_rung() const {
    if (features_.abi == 0) return find_rung_without_landlock();
    StartVerdict full = probe_a_start(features_, StartMode{true, &seccomp_own_network_, nullptr, options_.report_connects});
    if (full.started) return full;
    if (!features_.has_tcp())
        return StartVerdict{false, full.refusal + "; Landlock alone (rung 3) needs Landlock ABI 4 for its TCP port "
                                   "rules (this kernel has ABI " + std::to_string(features_.abi) + ")", 0, ""};
    StartVerdict alone = probe_a_start(features_, StartMode{false, &seccomp_, &rung3_filter_, false});
    if (!alone.started)
        return StartVerdict{false, full.refusal + "; Landlock alone (rung 3) does not start either: " + alone.refusal,
                            0, ""};
    alone.above = full.refusal;
    return alone;
}

// Namespaces without Landlock: the same start as the full mode, whose mounts
// then carry every file rule (fresh_dev_plan.hpp).
StartVerdict LandlockBackend::find_rung_without_landlock() const {
    const std::string missing = "Landlock is not available in this kernel (enable CONFIG_SECURITY_LANDLOCK and add "
                                "landlock to the lsm= boot list)";
    StartVerdict mounts =
        probe_a_start(features_, StartMode{true, &seccomp_own_network_, nullptr, options_.report_connects});
    if (!mounts.started)
        return StartVerdict{false, missing + "; namespaces without Landlock (rung 2) do not start either: " +
                                       mounts.refusal, 0, ""};
    mounts.above = missing;
    return mounts;
}

// Rung 2: only the mounts carry the file rules (fresh_dev_plan.hpp); rung
// 3: the plan without mounts or namespaces (landlock_only_plan.hpp).
void LandlockBackend::fit_to_rung(Plan& plan) {
    if (start_verdict().rung == 2) adapt_for_mounts_alone(plan);
    if (start_verdict().rung == 3) adapt_for_landlock_only(plan);
}

void LandlockBackend::render(const oms::sdk::Context& context, const oms::sdk::Policy& policy,
                             const oms::sdk::Report& report) {
    Plan plan = build_plan(context, policy, options_);
    fit_to_rung(plan);
    for (const auto& line : render_plan(plan, features_, seccomp_for(plan))) report.text(line);
    for (const auto& gap : landlock_gaps(false)) report.text("missing: " + gap);
    if (start_verdict().started)
        for (const auto& gap : rung_gaps(start_verdict().rung, features_)) report.text("missing: " + gap);
}

// What this kernel's Landlock lacks (only what leaves a rule unenforced,
// when `unenforced`); nothing on rung 2, which uses no Landlock: its mounts
// carry the file rules, and rung_gaps says what they do not.
std::vector<std::string> LandlockBackend::landlock_gaps(bool unenforced) {
    if (start_verdict().started && start_verdict().rung == 2) return {};
    return unenforced ? unenforceable(features_) : missing_guarantees(features_);
}

void LandlockBackend::check_enforceable(const oms::sdk::Context& context) {
    auto gaps = landlock_gaps(true);
    if (gaps.empty()) return;
    if (!context.best_effort())
        throw Error(OMS_ERR_UNSUPPORTED, "landlock cannot enforce the whole policy on this kernel: " + joined(gaps) +
                                             " (use --best-effort to run anyway)");
    host().log(OMS_LOG_WARN, "best effort: running without " + joined(gaps));
}

// The child for `plan`, in the task's network when `network` has a member to
// join.
std::unique_ptr<ConfinedRun> LandlockBackend::launch_confined(const Plan& plan, oms_stdio stdio, TaskNetwork* network) {
    const uint32_t resolver = network ? network->resolver_address() : TaskNetwork::kOwnResolver;
    ChildSpec spec = make_child_spec(plan, features_, seccomp_for(plan));
    spec.join_pidfd = network ? network->join_pidfd() : -1;
    spec.task_lock_fd = network ? network->lock_descriptor() : -1;
    spec.resolver_address = resolver;
    if (!plan.namespaces) spec.extra_seccomp = &rung3_filter_;
    spec.stdio[0] = stdio.in;
    spec.stdio[1] = stdio.out;
    spec.stdio[2] = stdio.err;
    if (!network) return launch(spec);
    spec.tell_network_entered = true;
    return launch(spec, [network](pid_t init) { network->enroll(init); });
}

std::unique_ptr<oms::sdk::Run> LandlockBackend::spawn(const oms::sdk::Context& context,
                                                      const oms::sdk::Policy& policy, oms_stdio stdio) {
    check_enforceable(context);
    Plan plan = build_plan(context, policy, options_);
    if (!start_verdict().started)  // the core probes first; never start what the probe refused
        throw Error(OMS_ERR_UNAVAILABLE, start_verdict().refusal);
    fit_to_rung(plan);
    host().log(OMS_LOG_DEBUG, launch_phase_mark("plan"));  // the keypair search's walks are in it
    if (!plan.search_counts.empty()) host().log(OMS_LOG_DEBUG, plan.search_counts);
    // The trusted listener shares the host's network: only Landlock's port
    // filter limits it there, so without it (even best effort) it never runs.
    if (plan.trusted_listener && !features_.has_tcp())
        throw Error(OMS_ERR_UNSUPPORTED, "landlock: the trusted Surfpool binary would share the host's network with "
                                         "no port filter (this kernel lacks Landlock ABI 4); nothing ran");
    // A published port is the sandbox's own loopback's: a run on the host's
    // network (rung 3, the trusted listener) has none to publish.
    if (!plan.publish_ports.empty() && !plan.own_network)
        throw Error(OMS_ERR_UNSUPPORTED, "landlock: cannot publish port " + std::to_string(plan.publish_ports[0]) +
                                             ": this run has no network namespace of its own (" +
                                             (plan.trusted_listener ? "the trusted listener serves the host's loopback"
                                                                    : "rung 3 starts without namespaces") +
                                             "); nothing ran");
    // The run's resolver answers there (dns_responder.hpp): published, any
    // local user could fill its reports and its few TCP slots.
    for (uint16_t port : plan.publish_ports)
        if (port == 53)
            throw Error(OMS_ERR_UNSUPPORTED, "landlock: cannot publish port 53: the sandbox's own resolver answers "
                                             "there; nothing ran");
    if (!plan.too_deep.empty()) host().log(OMS_LOG_WARN, too_deep_notice(plan.too_deep));
    const std::string state_dir(context.state_dir());
    for (const auto& line : keypair_notices(plan, values_of(policy, OMS_RULE_READ_DENY_SUFFIX), state_dir))
        host().log(OMS_LOG_WARN, line);
    tell_hidden_files(plan);
    for (const auto& line : link_scratch_trees_into_private_home(std::string(context.home()),
                                                                 std::string(context.private_home()), plan.scratch_trees))
        host().log(OMS_LOG_WARN, line);
    auto run = launch_in_task_network(plan, stdio, state_dir, std::string(context.worktree()));
    host().log(OMS_LOG_DEBUG, launch_phase_mark("command-started"));  // the child set up, the command exec'd
    return run;
}

// The child in its task's network (task_network.hpp) when the plan has a
// network of its own: a run of the task that joins one whose member has
// ended since the look looks again, three times at most, then makes a
// network of its own.
std::unique_ptr<ConfinedRun> LandlockBackend::launch_in_task_network(const Plan& plan, oms_stdio stdio,
                                                                     const std::string& state_dir,
                                                                     const std::string& worktree) {
    constexpr int kLooks = 3;
    auto look = [&](int looks) {
        return plan.own_network && plan.namespaces && looks <= kLooks
                   ? std::make_unique<TaskNetwork>(state_dir, worktree, plan.connect_ports, task_network_idle_)
                   : nullptr;
    };
    int looks = 1;
    std::unique_ptr<TaskNetwork> network = look(looks);
    for (;;) {
        try {
            auto run = launch_confined(plan, stdio, network.get());
            if (network) run->keep_member(std::move(network));
            return run;
        } catch (const LaunchFailure& failure) {
            const bool joined = network && network->join_pidfd() >= 0;
            if (joined && failure.step() == kJoinStep) {
                host().log(OMS_LOG_DEBUG, "landlock: the run whose network this run joins has ended: looking again");
                network.reset();
                network = look(++looks);
                continue;
            }
            // A command of the task holds the resolver's address on the
            // task's loopback (root's commands may bind port 53): this run
            // gets a loopback of its own instead, never an answer from that
            // command.
            if (!joined || failure.step() != kResolverStep) {
                forget_cached_verdict();  // the next probe starts again instead of trusting it
                throw;
            }
            host().log(OMS_LOG_WARN, "landlock: the task's loopback is not shared with this run: its resolver's "
                                     "address is taken there (by a command of the task); this run has a loopback of "
                                     "its own");
            network.reset();
        }
    }
}

}  // namespace oms::landlock
