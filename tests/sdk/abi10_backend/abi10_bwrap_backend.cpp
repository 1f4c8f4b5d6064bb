// A backend written for plugin ABI 1.0, as a third party wrote it then: it
// knows the rule kinds 1 to 10 and nothing else, names no target minor and
// declares no rule kinds. It is compiled unchanged through today's
// oms/sdk.hpp, in the two styles such code comes in:
//  - ABI10_REFUSES_UNKNOWN_KINDS: a kind it does not know fails the run;
//  - otherwise: a `default:` branch skips it (the common way).
// Rebuilt so, it must still load on a 1.0 host, and get every rule of
// today's policies in kinds it knows (a nested .git as WRITE_DENY paths):
// tests/sdk/CMakeLists.txt runs it through oms-backend-check and oms.
#include "tiocsti_filter.hpp"

#include <oms/process.hpp>
#include <oms/sdk.hpp>

#include <dirent.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>

namespace {

#ifdef ABI10_REFUSES_UNKNOWN_KINDS
constexpr const char* kId = "compat-abi10-refusing";
#else
constexpr const char* kId = "compat-abi10-skipping";
#endif
constexpr int kSeccompFd = 10;

using Args = std::vector<std::string>;

bool exists(const std::string& path) {
    struct stat info;
    return lstat(path.c_str(), &info) == 0;
}

bool is_folder(const std::string& path) {
    struct stat info;
    return lstat(path.c_str(), &info) == 0 && S_ISDIR(info.st_mode);
}

bool ends_with(const std::string& text, const std::string& end) {
    return text.size() >= end.size() && text.compare(text.size() - end.size(), end.size(), end) == 0;
}

// Keypair files present now below `root` (links not followed).
void find_suffixed(const std::string& root, const std::vector<std::string>& suffixes, std::vector<std::string>& found) {
    DIR* dir = opendir(root.c_str());
    if (!dir) return;
    while (dirent* entry = readdir(dir)) {
        const std::string name = entry->d_name;
        if (name == "." || name == "..") continue;
        const std::string path = root + "/" + name;
        bool matched = false;
        for (auto& suffix : suffixes) matched = matched || ends_with(path, suffix);
        if (matched && !is_folder(path)) found.push_back(path);
        if (!matched && is_folder(path)) find_suffixed(path, suffixes, found);
    }
    closedir(dir);
}

std::vector<std::string> outer_first(std::vector<std::string> paths) {
    std::sort(paths.begin(), paths.end(), [](const std::string& a, const std::string& b) {
        return a.size() != b.size() ? a.size() < b.size() : a < b;
    });
    return paths;
}

struct Rules {
    std::vector<std::string> deny_trees, read_trees, write_trees, read_denies, suffixes, write_denies;
};

// The ten kinds of ABI 1.0.
Rules sort_rules(const oms::sdk::Policy& policy) {
    Rules r;
    for (auto& rule : policy.rules()) {
        std::string value(rule.value);
        switch (rule.kind) {
        case OMS_RULE_READ_DENY_TREE: r.deny_trees.push_back(value); break;
        case OMS_RULE_READ_ALLOW_TREE: r.read_trees.push_back(value); break;
        case OMS_RULE_READ_DENY: r.read_denies.push_back(value); break;
        case OMS_RULE_READ_DENY_SUFFIX: r.suffixes.push_back(value); break;
        case OMS_RULE_WRITE_ALLOW_TREE:
            if (value.rfind("/dev/", 0) != 0) r.write_trees.push_back(value);
            break;
        case OMS_RULE_WRITE_DENY: r.write_denies.push_back(value); break;
        case OMS_RULE_ENV_PASS:             // already in policy.env()
        case OMS_RULE_NET_CONNECT_LOOPBACK:  // no relay: the port stays closed (stricter)
        case OMS_RULE_NET_LISTEN_LOOPBACK:
        case OMS_RULE_IPC_DENY_SERVICE: break;  // macOS
#ifdef ABI10_REFUSES_UNKNOWN_KINDS
        default:
            throw oms::sdk::Error(OMS_ERR_UNSUPPORTED, std::string(kId) + ": unknown rule kind " +
                                                           std::to_string(rule.kind));
#else
        default: break;  // a kind this backend does not know
#endif
        }
    }
    return r;
}

void append(Args& to, std::initializer_list<std::string> more) { to.insert(to.end(), more); }

Args bwrap_argv(const oms::sdk::Context& context, const oms::sdk::Policy& policy) {
    Rules r = sort_rules(policy);
    Args a{"/usr/bin/bwrap", "--unshare-all", "--die-with-parent", "--cap-drop", "ALL", "--ro-bind", "/", "/",
           "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp", "--tmpfs", "/var/tmp", "--tmpfs", "/run"};
    for (auto& tree : outer_first(r.deny_trees)) append(a, {"--tmpfs", tree});
    for (auto& tree : outer_first(r.read_trees)) append(a, {"--ro-bind-try", tree, tree});
    for (auto& tree : outer_first(r.write_trees)) append(a, {"--bind-try", tree, tree});
    if (auto agent = context.env("SSH_AUTH_SOCK"); agent && exists(std::string(*agent)))
        append(a, {"--ro-bind", "/dev/null", std::string(*agent)});
    for (auto& path : outer_first(r.read_denies)) {
        if (is_folder(path)) append(a, {"--tmpfs", path, "--remount-ro", path});
        else if (exists(path)) append(a, {"--ro-bind", "/dev/null", path});
    }
    // Keypair files in the worktree (other runs' files in a shared /tmp are
    // not this run's business, and may lie below folders bwrap cannot enter).
    std::vector<std::string> keypairs;
    find_suffixed(std::string(context.worktree()), r.suffixes, keypairs);
    for (auto& path : keypairs) {
        const bool named = std::find(r.read_trees.begin(), r.read_trees.end(), path) != r.read_trees.end() ||
                           std::find(r.read_denies.begin(), r.read_denies.end(), path) != r.read_denies.end();
        if (!named) append(a, {"--ro-bind", "/dev/null", path});
    }
    for (auto& path : outer_first(r.write_denies)) append(a, {"--ro-bind-try", path, path});
    append(a, {"--chdir", std::string(context.worktree()), "--seccomp", std::to_string(kSeccompFd), "--",
               "/usr/bin/env", "--default-signal=INT,TERM,HUP,QUIT", "-u", "PWD", "--"});
    for (auto arg : context.argv()) a.emplace_back(arg);
    return a;
}

class Abi10Backend final : public oms::sdk::BackendPlugin {
public:
    static constexpr const char* id = kId;
    static constexpr const char* version = "1.0.0";
    static constexpr const char* summary = "a backend written for ABI 1.0 (bubblewrap; no loopback relay)";
    static constexpr uint32_t flags = OMS_BACKEND_CONFINES;
    static constexpr uint32_t strength = 1;
    static constexpr const char* platforms = "linux";
    static const oms_config_key* config_keys() { return nullptr; }
    static size_t config_key_count() { return 0; }

    using BackendPlugin::BackendPlugin;

    void probe(const oms::sdk::Report& report) override {
        if (access("/usr/bin/bwrap", X_OK) != 0) throw oms::sdk::Error(OMS_ERR_UNAVAILABLE, "no /usr/bin/bwrap");
        report.summary("bubblewrap, as written for ABI 1.0");
        report.missing("net-connect-loopback: not granted (no relay: allowed loopback ports stay closed)");
    }

    void render(const oms::sdk::Context& context, const oms::sdk::Policy& policy, const oms::sdk::Report& report) override {
        std::string line;
        for (auto& arg : bwrap_argv(context, policy)) line += (line.empty() ? "" : " ") + arg;
        report.text(line);
    }

    std::unique_ptr<oms::sdk::Run> spawn(const oms::sdk::Context& context, const oms::sdk::Policy& policy,
                                         oms_stdio stdio) override {
        oms::sdk::ExecSpec spec;
        spec.argv = bwrap_argv(context, policy);
        for (auto entry : policy.env()) spec.env.emplace_back(entry);
        spec.cwd = std::string(context.worktree());
        spec.stdio = stdio;
        spec.dies_with_parent = true;
        spec.own_process_group = true;
        spec.signal_target = oms::sdk::SignalTarget::process_group;
        const int filter = bwrap_example::tiocsti_filter_descriptor();
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
};

}  // namespace

OMS_EXPORT_BACKEND_PLUGIN(Abi10Backend)
