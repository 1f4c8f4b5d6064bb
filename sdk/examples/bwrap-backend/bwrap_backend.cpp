// example-bwrap: a launcher-style backend. It confines each command with
// bubblewrap, started through oms/process.hpp with the seccomp program on a
// kept descriptor, in a process group of its own so a forwarded signal
// reaches the real command behind bwrap. About what it cannot grant (loopback
// ports: there is no relay here), it runs stricter and says so.
//
// It targets ABI 1.1 (it renders the 1.1 rule kinds itself) and declares
// the kinds it handles; oms hands it no other kind, and sdk.hpp refuses one
// before render or spawn would see it.
#define OMS_TARGET_ABI_MINOR 1
#include "bwrap_arguments.hpp"
#include "tiocsti_filter.hpp"

#include <oms/process.hpp>
#include <oms/sdk.hpp>

#include <signal.h>
#include <unistd.h>

namespace {

const oms_config_key kKeys[] = {
    {sizeof(oms_config_key), "bwrap", OMS_CONFIG_STRING, 0, "path of the bwrap binary (default /usr/bin/bwrap)"},
};

// The descriptor number the seccomp program has in bwrap.
constexpr int kSeccompFd = 10;

class BwrapBackend final : public oms::sdk::BackendPlugin {
public:
    static constexpr const char* id = "example-bwrap";
    static constexpr const char* version = "0.1.0";
    static constexpr const char* summary = "example: commands confined by bubblewrap (no network but loopback, no relay)";
    static constexpr uint32_t flags = OMS_BACKEND_CONFINES;
    static constexpr uint32_t strength = 60;
    static constexpr const char* platforms = "linux";
    // Every kind of ABI 1.1; the loopback allows and scratch trees it runs
    // stricter (denied), as probe declares.
    static constexpr uint64_t rule_kinds = oms::abi::rule_kinds_of_minor(1);
    static const oms_config_key* config_keys() { return kKeys; }
    static size_t config_key_count() { return sizeof kKeys / sizeof kKeys[0]; }

    explicit BwrapBackend(oms::sdk::Host host)
        : BackendPlugin(host), bwrap_(host.string("bwrap").value_or("/usr/bin/bwrap")) {}

    void probe(const oms::sdk::Report& report) override {
        if (access(bwrap_.c_str(), X_OK) != 0)
            throw oms::sdk::Error(OMS_ERR_UNAVAILABLE, "example-bwrap: " + bwrap_ + " is not an executable file");
        report.summary("bubblewrap (" + bwrap_ + "; no network but loopback)");
        report.settings("Commands run under bubblewrap; loopback ports of the policy stay closed.");
        report.missing("net-connect-loopback: not granted (no relay in this example: allowed loopback ports stay closed)");
        report.missing("write-scratch-tree: not granted (scratch trees are read-only here)");
    }

    void render(const oms::sdk::Context& context, const oms::sdk::Policy& policy,
                const oms::sdk::Report& report) override {
        auto launch = bwrap_example::bwrap_launch(bwrap_, context, policy, kSeccompFd);
        std::string line;
        for (auto& arg : launch.argv) line += (line.empty() ? "" : " ") + arg;
        report.text(line);
        for (auto& note : launch.notes) report.text("missing: " + note);
    }

    std::unique_ptr<oms::sdk::Run> spawn(const oms::sdk::Context& context, const oms::sdk::Policy& policy,
                                         oms_stdio stdio) override {
        auto argv = context.argv();
        // env would take a first word holding '=' for a variable to set.
        if (argv.empty() || argv[0].find('=') != std::string_view::npos)
            throw oms::sdk::Error(OMS_ERR_INVALID, "example-bwrap: a program name may not contain '='");
        oms::sdk::ExecSpec spec;
        spec.argv = bwrap_example::bwrap_launch(bwrap_, context, policy, kSeccompFd).argv;
        for (auto entry : policy.env()) spec.env.emplace_back(entry);
        spec.cwd = std::string(context.worktree());
        spec.stdio = stdio;
        spec.dies_with_parent = true;
        // bwrap and the command share a group of their own; a signal goes to
        // the group. bwrap ignores the forwarded ones (set below, before its
        // exec) so it cannot die first and take the command with it; env
        // restores the defaults for the command.
        spec.own_process_group = true;
        spec.signal_target = oms::sdk::SignalTarget::process_group;
        int filter = bwrap_example::tiocsti_filter_descriptor();
        spec.keep_descriptors = {{filter, kSeccompFd}};
        try {
            auto child = oms::sdk::ChildProcess::start(spec, [] {
                for (int forwarded : {SIGINT, SIGTERM, SIGHUP, SIGQUIT}) ::signal(forwarded, SIG_IGN);
            });
            close(filter);
            return child;
        } catch (...) {
            close(filter);
            throw;
        }
    }

private:
    std::string bwrap_;
};

}  // namespace

OMS_EXPORT_BACKEND_PLUGIN(BwrapBackend)
