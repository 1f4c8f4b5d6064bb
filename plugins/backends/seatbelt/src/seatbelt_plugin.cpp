// The seatbelt backend plugin: wires HostFacts, the profile renderer and the
// launcher to the oms backend interface.
// Targets ABI 1.4: it uses working_dir and declares the rule kinds it handles, 1.4's
// NET_CONNECT_RUN_PORT (the run's own egress proxy port) among them.
#define OMS_TARGET_ABI_MINOR 4
#include "host_facts.hpp"
#include "launcher.hpp"
#include "probe_report.hpp"
#include "sbpl_profile.hpp"
#include "sbpl_quote.hpp"
#include "unhideable_keypairs.hpp"

#include <oms/sdk.hpp>

namespace oms::seatbelt {

namespace {

const oms_config_key config_key_list[] = {
    {sizeof(oms_config_key), "sandbox_exec", OMS_CONFIG_STRING, 0,
     "absolute path of sandbox-exec; default /usr/bin/sandbox-exec"},
};

std::vector<std::string> owned(const std::vector<std::string_view>& views) {
    return std::vector<std::string>(views.begin(), views.end());
}

// The rendered form of one sandbox-exec parameter, readable by a shell.
std::string parameter_line(const ProfileParameter& parameter) {
    std::string origin;
    for (char c : parameter.origin) origin += static_cast<unsigned char>(c) < 0x20 ? '?' : c;
    return ";;   -D " + shell_word(parameter.name + "=" + parameter.value) + "   ; " + origin;
}

void emit_lines(const oms::sdk::Report& report, const std::string& text) {
    size_t start = 0;
    for (size_t end = text.find('\n'); end != std::string::npos; end = text.find('\n', start)) {
        report.text(std::string_view(text).substr(start, end - start));
        start = end + 1;
    }
    if (start < text.size()) report.text(std::string_view(text).substr(start));
}

}  // namespace

class SeatbeltBackend final : public oms::sdk::BackendPlugin {
public:
    static constexpr const char* id = "seatbelt";
    static constexpr const char* version = OMS_VERSION;
    static constexpr const char* summary = "macOS Seatbelt: runs each command under sandbox-exec with an SBPL profile";
    static constexpr uint32_t flags = OMS_BACKEND_CONFINES | OMS_BACKEND_SHARES_PROCESS_GROUP;
    static constexpr uint32_t strength = 100;
    // Every kind of ABI 1.1, and 1.4's run port (allowed like a loopback port: the profile is per run).
    static constexpr uint64_t rule_kinds =
        oms::abi::rule_kinds_of_minor(1) | OMS_RULE_BIT(OMS_RULE_NET_CONNECT_RUN_PORT);
    static constexpr uint32_t explain_model = OMS_EXPLAIN_MODEL_SEATBELT;
    // oms verify: Seatbelt has no network namespace; the profile opens the
    // Surfnet's host port alone (the host adds its two loopback rules).
    static constexpr uint32_t verify_network = OMS_VERIFY_NETWORK_HOST_PORT;
    static constexpr const char* verify_network_text =
        "the Surfnet listens on the host's 127.0.0.1:{port} (the port must be free before the start: the "
        "launcher refuses to run the check when something already answers there); the profile allows "
        "outbound to that port only and listening on it (to every process of the check: Seatbelt has no "
        "per-binary network filter); no other host port";
    static constexpr const char* platforms = "macos";
    static const oms_config_key* config_keys() { return config_key_list; }
    static size_t config_key_count() { return sizeof config_key_list / sizeof config_key_list[0]; }

    explicit SeatbeltBackend(oms::sdk::Host host) : BackendPlugin(host) {}

    void probe(const oms::sdk::Report& report) override { report_probe(facts(), report); }

    // Works on every platform, so a profile can be reviewed anywhere.
    void render(const oms::sdk::Context& context, const oms::sdk::Policy& policy,
                const oms::sdk::Report& report) override {
        const HostFacts here = facts();
        const Profile profile = render_profile(policy.rules(), resolver(here), run_folder(context));
        report.text(";; Run as: " + here.sandbox_exec + " -D NAME=VALUE... -f <profile file> <command...>");
        report.text(";; Parameters (shell-quoted):");
        for (const auto& parameter : profile.parameters) report.text(parameter_line(parameter));
        for (const auto& limit : profile.limits) report.text(";; Limit: " + limit);
        emit_lines(report, profile.text);
    }

    std::unique_ptr<oms::sdk::Run> spawn(const oms::sdk::Context& context, const oms::sdk::Policy& policy,
                                         oms_stdio stdio) override {
        const HostFacts here = facts();
        require_usable(here);
        if (const std::string note = refuse_unhideable_keypairs(context, policy); !note.empty())
            host().log(OMS_LOG_WARN, note);
        LaunchRequest request;
        request.profile = render_profile(policy.rules(), resolver(here), run_folder(context));
        // The spec accepts these (see docs/backends/seatbelt.md); `oms policy`
        // shows them, the log keeps a trace per run.
        for (const auto& limit : request.profile.limits) host().log(OMS_LOG_DEBUG, "seatbelt: " + limit);
        request.sandbox_exec = here.sandbox_exec;
        request.state_dir = std::string(context.state_dir());
        request.argv = owned(context.argv());
        request.env = owned(policy.env());
        request.cwd = oms::sdk::checked_working_dir(context);
        request.stdio = stdio;
        return launch(request);
    }

private:
    HostFacts facts() const { return gather_host_facts(host().string("sandbox_exec")); }

    static RunFolder run_folder(const oms::sdk::Context& context) {
        return run_folder_of(context.private_home(), context.temp_dir());
    }

    // Symlinks are resolved only where the profile will be enforced: on
    // another platform the paths describe a Mac, not this machine.
    static PathResolver resolver(const HostFacts& here) {
        return here.platform == "macos" ? PathResolver(&resolve_on_this_machine) : PathResolver(&keep_path);
    }
};

}  // namespace oms::seatbelt

OMS_EXPORT_BACKEND_PLUGIN(oms::seatbelt::SeatbeltBackend)
