// host-null: runs the command on the host with NO operating-system
// confinement. What still applies comes from the core: the scrubbed
// environment, the private per-run HOME, and approval of every command
// (this backend sets OMS_BACKEND_NEEDS_APPROVAL). It exists so that running
// unconfined is an explicit, loud choice, never a silent fallback.
// Targets ABI 1.4: it uses working_dir and declares the rule kinds it handles, 1.4's
// NET_CONNECT_RUN_PORT (the run's own egress proxy port) among them.
#define OMS_TARGET_ABI_MINOR 4
#include <oms/process.hpp>
#include <oms/sdk.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <optional>

namespace {

// A command that could not start, answered as a shell answers it: its words
// on the command's stderr and its status (127 not found, 126 not executable).
class ShellAnswer final : public oms::sdk::Run {
public:
    explicit ShellAnswer(int status) : status_(status) {}
    void signal(int) override {}
    int wait() override { return status_; }

private:
    int status_;
};

struct CannotStart {
    int status;
    std::string reason;
};

std::optional<CannotStart> cannot_start(const oms::sdk::ExecSpec& spec) {
    const std::string& name = spec.argv.at(0);
    if (name.find('/') == std::string::npos) {
        try {
            oms::sdk::find_program(name, spec.env, spec.cwd);
            return std::nullopt;
        } catch (const oms::sdk::Error&) {
            return CannotStart{127, "command not found"};
        }
    }
    const std::string full = name[0] == '/' ? name : spec.cwd + "/" + name;
    struct stat info {};
    if (stat(full.c_str(), &info) != 0) return CannotStart{127, "No such file or directory"};
    if (!S_ISREG(info.st_mode) || access(full.c_str(), X_OK) != 0) return CannotStart{126, "Permission denied"};
    return std::nullopt;
}

class HostNull final : public oms::sdk::BackendPlugin {
public:
    static constexpr const char* id = "host-null";
    static constexpr const char* version = OMS_VERSION;
    static constexpr const char* summary = "no sandbox: scrubbed env, private HOME, approval for every command";
    static constexpr uint32_t flags = OMS_BACKEND_NEEDS_APPROVAL | OMS_BACKEND_SHARES_PROCESS_GROUP;
    static constexpr uint32_t strength = 0;
    static constexpr uint64_t rule_kinds =  // shown, none enforced
        oms::abi::rule_kinds_of_minor(1) | OMS_RULE_BIT(OMS_RULE_NET_CONNECT_RUN_PORT);
    static constexpr const char* platforms = "linux,macos";
    // oms verify: said as it is; the host runs the check only with --yes.
    static constexpr uint32_t verify_network = OMS_VERIFY_NETWORK_UNCONFINED;
    static constexpr const char* verify_network_text =
        "none: OMS host mode has NO sandbox here; the check reaches every host port and the network, and "
        "reads your live files";
    static const oms_config_key* config_keys() { return nullptr; }
    static size_t config_key_count() { return 0; }

    using BackendPlugin::BackendPlugin;

    void probe(const oms::sdk::Report& report) override {
        // The spec's exact words, so users recognise them across tools.
        report.summary("host (no sandbox; unrestricted network)");
        report.settings("No sandbox. Commands need approval; network is unrestricted.");
        report.warn_once("OMS host mode has NO sandbox here");
        report.missing("file reads: an approved command can read anything your user can");
        report.missing("file writes: not confined to the worktree");
        report.missing("network: unrestricted");
    }

    void render(const oms::sdk::Context& context, const oms::sdk::Policy& policy,
                const oms::sdk::Report& report) override {
        report.text("host-null enforces nothing of the rules above; it applies only:");
        report.text("  environment: exactly the " + std::to_string(policy.env().size()) + " entries listed");
        report.text("  HOME: " + std::string(context.private_home()) + " (removed after the run)");
        report.text("  working folder: " + std::string(context.working_dir()));
        report.text("  approval: every command (interactive y/N, or --yes)");
    }

    std::unique_ptr<oms::sdk::Run> spawn(const oms::sdk::Context& context, const oms::sdk::Policy& policy,
                                         oms_stdio stdio) override {
        oms::sdk::ExecSpec spec;
        for (auto arg : context.argv()) spec.argv.emplace_back(arg);
        for (auto entry : policy.env()) spec.env.emplace_back(entry);
        spec.cwd = oms::sdk::checked_working_dir(context);
        spec.stdio = stdio;
        spec.dies_with_parent = true;  // killed with oms, never left running on its own
        if (const auto refused = cannot_start(spec)) {
            const std::string line = "oms: " + spec.argv[0] + ": " + refused->reason + "\n";
            ssize_t ignored = write(stdio.err, line.data(), line.size());
            (void)ignored;
            return std::make_unique<ShellAnswer>(refused->status);
        }
        return oms::sdk::ChildProcess::start(spec);
    }
};

}  // namespace

OMS_EXPORT_BACKEND_PLUGIN(HostNull)
