// oms-backend-check PLUGIN.so [--id ID] [--config KEY=VALUE]... [--scene-owner UID:GID] [--refuse ENV,...]: runs a backend plugin through the
// backend contract on a throw-away HOME and worktree, through its C ABI
// alone, and prints one line per obligation:
//   PASS  <obligation>: what was seen
//   FAIL  <obligation>: what went wrong
//   NOT GRANTED  <obligation>: an allow the backend declares it cannot grant
//   NOT CHECKED  <obligation>: why (a backend without confinement)
//   NOT RUN  <obligation>: --render-only, the run was not executed here
// Exit status: 0 when nothing FAILed, 1 when something did, 2 when the
// plugin could not be checked at all (not loadable, probe unavailable), 3
// with --render-only when nothing failed but the runs were not executed.
// See docs/backend-checklist.md.
#include "listener.hpp"
#include "loaded_backend.hpp"
#include "obligations.hpp"
#include "refused_syscalls.h"
#include "render_only.hpp"
#include "scene.hpp"

#include <oms/abi_history.hpp>

#include <limits.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>

using namespace oms::backend_check;

namespace {

constexpr int kExitFailed = 1;
constexpr int kExitCannotCheck = 2;


void usage() {
    std::fprintf(stderr,
                 "usage: oms-backend-check PLUGIN.so [--id ID] [--config KEY=VALUE]... [--scene-owner UID:GID]\n"
                 "                         [--render-only [--decide-with ORACLE]] [--refuse ENV[,ENV...]]\n"
                 "  --config sets a key of the plugin's [plugin.<id>] table (arrays comma-separated)\n"
                 "  --scene-owner (as root only) gives the worktree, private HOME and temp folder to UID:GID\n"
                 "  --render-only: for a backend whose commands cannot run here: descriptor, config keys,\n"
                 "    render, and with --decide-with ORACLE the precedence table on the rendered plan;\n"
                 "    the run obligations print NOT RUN and the exit status is 3, never 0\n"
                 "  --refuse checks the backend where its full mode cannot start, made by a seccomp filter\n"
                 "    around the kit and the backend: namespaces (unshare/clone refused), mounts (mount\n"
                 "    calls refused), landlock (no Landlock); comma-separated for several\n"
                 "Checks a backend plugin against the oms backend contract (docs/backend-checklist.md).\n");
}

std::string one_line(std::string text) {
    for (auto& c : text)
        if (c == '\n' || c == '\r') c = ' ';
    return text;
}


std::string self_path() {
    char buffer[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", buffer, sizeof buffer - 1);
    if (n <= 0) return "";
    buffer[n] = '\0';
    return buffer;
}

// The static in-sandbox helper, installed next to the checker.
std::string helper_path() {
    const std::string self = self_path();
    return self.substr(0, self.rfind('/') + 1) + "oms-backend-check-helper";
}

// oms hands plugins absolute paths (a plugin may find its own files, such as
// a runner, next to itself), so the checker does too.
std::string absolute(const std::string& path) {
    char* resolved = realpath(path.c_str(), nullptr);
    if (!resolved) throw LoadError{"cannot find the plugin " + path + ": " + std::strerror(errno)};
    std::string result = resolved;
    std::free(resolved);
    return result;
}

struct Options {
    std::string plugin, id, scene_owner, oracle, refuse;
    bool render_only = false;
    std::vector<std::string> config;
};

std::string kind_list(uint64_t kinds) {
    std::string out;
    for (oms_rule_kind kind = 1; kind < 64; ++kind)
        if (oms::abi::has_kind(kinds, kind)) {
            const char* name = oms::abi::rule_kind_constant(kind);
            out += (out.empty() ? "" : ", ") + (name ? std::string(name) : "kind " + std::to_string(kind));
        }
    return out.empty() ? "none" : out;
}

// The kit hands the backend what oms would: the rules lowered into the kinds
// it declares (printed once, with what was rewritten).
void declare_backend(const LoadedBackend& backend, Scene& scene) {
    const auto& descriptor = backend.descriptor();
    scene.backend_kinds = backend.rule_kinds();
    scene.backend_id = descriptor.id ? descriptor.id : "backend";
    std::printf("abi          targets ABI %u.%u; rule kinds %s: %s\n", unsigned{descriptor.abi_major},
                unsigned{descriptor.abi_minor},
                backend.declares_rule_kinds() ? "declared" : "not declared (the frozen set of its target minor)",
                kind_list(backend.rule_kinds()).c_str());
    scene.policy();
    if (scene.lowered.empty()) std::printf("lowered      nothing: the backend declares every kind of the policy\n");
    for (auto& line : scene.lowered) std::printf("lowered      %s\n", line.c_str());
    std::fflush(stdout);
}

int check(const Options& options) {
    const std::string helper = helper_path();
    if (access(helper.c_str(), X_OK) != 0) {
        std::fprintf(stderr, "oms-backend-check: the in-sandbox helper %s is missing (it is installed with the checker)\n",
                     helper.c_str());
        return kExitCannotCheck;
    }
    LoadedBackend backend(absolute(options.plugin), options.id, options.config);
    const auto& descriptor = backend.descriptor();
    std::printf("backend %s %s: %s\n", descriptor.id, descriptor.version ? descriptor.version : "?",
                descriptor.summary ? descriptor.summary : "(no summary)");
    if (options.render_only) {
        Scene scene(helper, options.scene_owner);
        declare_backend(backend, scene);
        scene.set_ports(40001, 40002);  // rendered, never connected to
        return check_render_only(backend, scene, options.oracle);
    }
    std::vector<ReportLine> report;
    std::string reason;
    if (backend.probe(report, reason) != OMS_OK) {
        std::printf("FAIL         probe: the backend cannot run here: %s\n", one_line(reason).c_str());
        return kExitCannotCheck;
    }
    std::vector<std::string> missing, details;
    for (auto& line : report) {
        if (line.kind == OMS_REPORT_MISSING) missing.push_back(line.text);
        if (line.kind == OMS_REPORT_DETAIL) details.push_back(line.text);
    }
    const uint32_t flags = backend.api().flags;
    const bool confines = flags & OMS_BACKEND_CONFINES;
    if (!confines && !(flags & OMS_BACKEND_NEEDS_APPROVAL)) {
        print_result({"flags", Verdict::fail, "declares neither OMS_BACKEND_CONFINES nor OMS_BACKEND_NEEDS_APPROVAL"});
        return kExitFailed;
    }

    Scene scene(helper, options.scene_owner);
    declare_backend(backend, scene);
    auto allowed = Listener::tcp_loopback();
    auto denied = Listener::tcp_loopback();
    auto agent = Listener::unix_socket(scene.agent_socket);
    const std::string worktree_socket_path = scene.worktree + "/control.sock";
    auto worktree_socket = Listener::unix_socket(worktree_socket_path);
    // Only the sandbox may keep the command from these sockets, not their
    // mode (a backend may run the command as another user than the checker).
    chmod(scene.agent_socket.c_str(), 0777);
    chmod(worktree_socket_path.c_str(), 0777);
    scene.set_ports(allowed->port(), denied->port());
    Bench bench{backend, scene, scene.helper, missing, details, *allowed, *denied, *agent, *worktree_socket, worktree_socket_path};

    int failures = 0;
    auto report_all = [&failures](const std::vector<Result>& results) {
        for (auto& result : results) {
            print_result(result);
            if (result.verdict == Verdict::fail) ++failures;
        }
    };
    report_all(check_process_obligations(bench));
    if (confines) {
        report_all(check_confinement_obligations(bench));
    } else {
        for (const auto& obligation : confinement_obligation_names())
            print_result({obligation, Verdict::not_checked,
                   "the backend declares no confinement (OMS_BACKEND_NEEDS_APPROVAL): every command needs approval"});
    }
    // The host ends the task when it is done (a warm container goes with it).
    std::string end_reason;
    if (backend.end_task(scene.context({"/bin/true"}), end_reason) != OMS_OK) {
        print_result({"end-task", Verdict::fail, "end_task failed: " + end_reason});
        ++failures;
    }
    std::printf("%s: %d obligation(s) failed\n", failures ? "FAILED" : "OK", failures);
    return failures ? kExitFailed : 0;
}

}  // namespace

namespace oms::backend_check {

void print_result(const Result& result) {
    const char* label = result.verdict == Verdict::pass          ? "PASS"
                        : result.verdict == Verdict::fail        ? "FAIL"
                        : result.verdict == Verdict::not_granted ? "NOT GRANTED"
                        : result.verdict == Verdict::not_run     ? "NOT RUN"
                                                                 : "NOT CHECKED";
    std::printf("%-12s %s: %s\n", label, result.obligation.c_str(), one_line(result.reason).c_str());
    std::fflush(stdout);
}

const std::vector<std::string>& process_obligation_names() {
    static const std::vector<std::string> names = {"environment", "exit-status", "command-not-found",
                                                   "signal-forwarding", "descriptors", "stdio"};
    return names;
}

const std::vector<std::string>& confinement_obligation_names() {
    static const std::vector<std::string> names = {
        "read-deny-home", "read-deny-keypair", "keypair-hard-link", "keypair-folder-name",
        "keypair-link-to-file", "keypair-rename-race", "write-deny-outside", "write-deny-git", "write-deny-pinned",
        "precedence", "network", "daemon-sockets", "capabilities", "no-new-privs", "pid-namespace",
        "raw-devices", "leftovers", "private-home"};
    return names;
}

}  // namespace oms::backend_check

int main(int argc, char** argv) {
    Options options;
    for (int i = 1; i < argc; ++i) {
        std::string arg = argv[i];
        if (arg == "--id" && i + 1 < argc)
            options.id = argv[++i];
        else if (arg == "--config" && i + 1 < argc)
            options.config.push_back(argv[++i]);
        else if (arg == "--scene-owner" && i + 1 < argc)
            options.scene_owner = argv[++i];
        else if (arg == "--render-only")
            options.render_only = true;
        else if (arg == "--decide-with" && i + 1 < argc)
            options.oracle = argv[++i];
        else if (arg == "--refuse" && i + 1 < argc)
            options.refuse = argv[++i];
        else if (arg == "-h" || arg == "--help") {
            usage();
            return 0;
        } else if (options.plugin.empty() && arg[0] != '-')
            options.plugin = arg;
        else {
            usage();
            return kExitCannotCheck;
        }
    }
    if (options.plugin.empty()) {
        usage();
        return kExitCannotCheck;
    }
    // Before the plugin is loaded: its probe must see the environment too.
    if (!options.refuse.empty()) {
        if (oms_refuse_syscalls(options.refuse.c_str()) != 0) {
            std::fprintf(stderr, "oms-backend-check: --refuse %s: %s\n", options.refuse.c_str(),
                         errno == EINVAL ? "name one or more of namespaces, mounts, landlock, comma-separated"
                                         : std::strerror(errno));
            return kExitCannotCheck;
        }
        std::printf("environment: %s refused around the kit and the backend (a seccomp filter)\n",
                    options.refuse.c_str());
    }
    signal(SIGPIPE, SIG_IGN);  // a command that closes its stdin early must not end the checker
    try {
        return check(options);
    } catch (const LoadError& e) {
        std::fprintf(stderr, "oms-backend-check: %s\n", e.message.c_str());
    } catch (const std::exception& e) {
        std::fprintf(stderr, "oms-backend-check: %s\n", e.what());
    }
    return kExitCannotCheck;
}
