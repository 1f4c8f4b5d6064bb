// oms explain: would the sandbox let a command read, write or run this path,
// reach or listen on this port, see this variable? Answered from the policy
// `oms run` would hand the backend (the same assembly), through the shared
// evaluator (rule_semantics). Runs nothing.
#include "oms/core/backend.hpp"
#include "oms/core/cli.hpp"
#include "oms/core/cli_options.hpp"
#include "oms/core/egress_rules.hpp"
#include "oms/core/error.hpp"
#include "oms/core/json.hpp"
#include "oms/core/paths.hpp"
#include "oms/core/policy.hpp"
#include "oms/core/policy_guard.hpp"
#include "oms/core/policy_lowering.hpp"
#include "oms/core/published_ports.hpp"
#include "oms/core/rule_semantics.hpp"
#include "oms/core/run_dir.hpp"
#include "oms/core/run_options.hpp"
#include "oms/core/running_runs.hpp"
#include "oms/core/trusted_surfpool.hpp"
#include "oms/core/violation_log.hpp"

#include <oms/abi_history.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <boost/program_options.hpp>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <optional>

namespace po = boost::program_options;

namespace oms::core {

namespace {

namespace fs = std::filesystem;

const char* kUsage =
    "usage: oms explain [options] read|write|exec|connect|listen|env TARGET...\n"
    "       oms explain --last [--json]\n"
    "       oms explain --running [--json]\n\n"
    "For each TARGET (a path; a PORT, HOST or HOST:PORT; a variable name): allowed, denied or hidden,\n"
    "and the rule that decides it with its origin. Runs nothing. --last: what the last `oms run` to end\n"
    "was refused (each host, port and rule). --running: the runs going on now (in this TMPDIR) and what\n"
    "each was refused so far.\n\noptions";

struct Answer {
    std::string target, resolved;
    Decision decision;
};

// Paths as the kernel would meet them: absolute from the current folder,
// symlinks of the part that exists followed (the rules hold real paths too).
std::string resolve_path(const std::string& target) {
    std::error_code error;
    fs::path absolute = fs::absolute(target, error).lexically_normal();
    fs::path real = fs::weakly_canonical(absolute, error);
    std::string out = (error ? absolute : real).string();
    if (out.size() > 1 && out.back() == '/') out.pop_back();
    return out;
}

bool is_path_access(Access access) {
    return access == Access::read || access == Access::write || access == Access::exec;
}

// A bare program name, as a shell would find it: the first executable file
// of that name on the command's PATH (not the caller's: the command gets the
// policy's environment).
std::optional<std::string> on_command_path(const std::string& name, const std::string& path) {
    for (const std::string& folder : split_list(path, ':')) {
        if (folder.empty() || folder[0] != '/') continue;
        const std::string candidate = folder + "/" + name;
        struct stat info {};
        if (::stat(candidate.c_str(), &info) == 0 && S_ISREG(info.st_mode) && ::access(candidate.c_str(), X_OK) == 0)
            return candidate;
    }
    return std::nullopt;
}

// The path a target names, and what the user should know about how it was found.
std::pair<std::string, std::vector<std::string>> resolve_target(Access access, const std::string& target,
                                                                const std::vector<std::string>& env) {
    std::vector<std::string> notes;
    if (!is_path_access(access)) return {target, notes};
    std::string named = target;
    if (access == Access::exec && target.find('/') == std::string::npos) {
        const std::string path = path_of(env);
        if (auto found = on_command_path(target, path)) {
            named = *found;
            notes.push_back("found on the command's PATH as " + *found);
        } else {
            notes.push_back("'" + target + "' is not on the command's PATH (" + path + "): a shell would say "
                            "command not found (exit 127); the verdict below is for ./" + target);
        }
    }
    const std::string resolved = resolve_path(named);
    struct stat info {};
    if (::lstat(resolved.c_str(), &info) != 0)
        notes.push_back(resolved + " does not exist now: the verdict is for a file made there");
    return {resolved, notes};
}

// The model the backend declares through its oms.explain-model/1 extension.
BackendFamily declared_family(const BackendChoice& backend) {
    const oms_backend_api* api = backend.record->backend();
    if (!OMS_ABI_HAS_FIELD(api->struct_size, oms_backend_api, get_extension) || !api->get_extension)
        return BackendFamily::unknown;
    const auto* model = static_cast<const oms_explain_model*>(
        api->get_extension(backend.instance->handle(), OMS_EXTENSION_EXPLAIN_MODEL));
    if (!model || model->struct_size < OMS_ABI_END_OF(oms_explain_model, model)) return BackendFamily::unknown;
    return family_of_model(model->model);
}

SemanticsInputs semantics_inputs(const BackendChoice& backend, const RunInputs& in) {
    SemanticsInputs s;
    const bool unconfined = backend.record->backend()->flags & OMS_BACKEND_NEEDS_APPROVAL;
    s.family = unconfined ? BackendFamily::unconfined : declared_family(backend);
    s.home = in.home;
    s.worktree = in.worktree;
    s.mounts_read_only = in.read_only;
    s.mounts_read_write = in.read_write;
    return s;
}

std::string rule_text(const PolicyRule& rule) {
    std::string value = is_numbered_rule(rule) ? std::to_string(rule.number) : rule.value;
    return rule_kind_name(rule.kind) + " " + value + "  (" + rule.origin + ")";
}

void print_text(const std::string& backend, Access access, const std::vector<Answer>& answers) {
    for (const Answer& a : answers) {
        if (a.decision.verdict == Verdict::unknown) {
            std::printf("%s %s: unknown under %s: run `oms doctor --probe`\n", access_name(access), a.target.c_str(),
                        backend.c_str());
            std::printf("  why: %s\n", a.decision.because.c_str());
            continue;
        }
        std::printf("%s %s: %s under %s\n", access_name(access), a.target.c_str(), verdict_name(a.decision.verdict),
                    backend.c_str());
        if (a.resolved != a.target) std::printf("  path: %s\n", a.resolved.c_str());
        std::printf("  rule: %s\n", a.decision.rule ? rule_text(*a.decision.rule).c_str() : "none (the backend's default)");
        std::printf("  why: %s\n", a.decision.because.c_str());
        for (const auto& note : a.decision.notes) std::printf("  note: %s\n", note.c_str());
    }
}

void print_json(const std::string& backend, Access access, const std::vector<Answer>& answers) {
    JsonWriter json;
    json.begin_object().key("backend").value(backend).key("access").value(access_name(access));
    json.key("answers").begin_array();
    for (const Answer& a : answers) {
        json.begin_object().key("target").value(a.target).key("resolved").value(a.resolved);
        json.key("verdict").value(verdict_name(a.decision.verdict)).key("because").value(a.decision.because);
        if (a.decision.rule) {
            json.key("rule").begin_object().key("kind").value(rule_kind_name(a.decision.rule->kind));
            json.key("value").value(a.decision.rule->value).key("number").value(a.decision.rule->number);
            json.key("origin").value(a.decision.rule->origin).end_object();
        }
        json.key("notes").strings(a.decision.notes).end_object();
    }
    json.end_array().end_object();
    std::printf("%s\n", json.str().c_str());
}

// A host other than loopback, as `connect` names it: "HOST" (port 443) or
// "HOST:PORT"; nullopt for a port alone or a loopback name.
std::optional<std::pair<std::string, int>> remote_host(const std::string& target, std::vector<std::string>& notes) {
    if (target.find_first_not_of("0123456789") == std::string::npos) return std::nullopt;
    std::string host = target, port_text;
    if (target.front() == '[') {
        const auto close = target.find(']');
        if (close == std::string::npos) return std::nullopt;
        host = target.substr(1, close - 1);
        if (close + 1 < target.size()) {
            if (target[close + 1] != ':') return std::nullopt;
            port_text = target.substr(close + 2);
            if (port_text.empty()) return std::nullopt;
        }
    } else if (const auto colon = target.find(':'); colon != std::string::npos) {
        if (target.find(':', colon + 1) != std::string::npos) return std::nullopt;  // a bare IPv6 address
        host = target.substr(0, colon);
        port_text = target.substr(colon + 1);
        if (port_text.empty()) return std::nullopt;
    }
    if (port_text.size() > 5 || port_text.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
    const int port = port_text.empty() ? 443 : std::stoi(port_text);
    if (port_text.empty()) notes.push_back("no port given: the verdict is for port 443");
    if (host.empty() || host == "localhost" || host == "::1" || host.rfind("127.", 0) == 0) return std::nullopt;
    return std::make_pair(host, port);
}

// A loopback port the run publishes is also the host's way in: said beside
// the verdict on the command's own connect, or that the backend leaves it
// unpublished.
void add_published_note(Decision& d, const std::string& target, const std::vector<uint16_t>& published,
                        const PluginRecord& backend) {
    const auto colon = target.rfind(':');
    const std::string port = colon == std::string::npos ? target : target.substr(colon + 1);
    for (uint16_t p : published) {
        if (std::to_string(p) != port) continue;
        d.notes.push_back(abi::has_kind(backend.rule_kinds, OMS_RULE_NET_PUBLISH_LOOPBACK)
                              ? "published: the host's 127.0.0.1:" + port +
                                    " reaches the command's own server on this port while a run lives"
                              : "not published: the backend '" + backend.id + "' does not publish ports");
    }
}

Decision decide_egress(const EgressRules& rules, const SemanticsInputs& inputs, const std::string& host, int port) {
    Decision d;
    if (inputs.family == BackendFamily::unconfined) {
        d.verdict = Verdict::allowed;
        d.because = "no sandbox";
        return d;
    }
    if (rules.empty()) {
        d.verdict = Verdict::denied;
        d.because = "no rule kind allows hosts other than loopback";
        d.notes.push_back("[network] allow_hosts (or --allow-host) would let the command reach it through oms's proxy");
        return d;
    }
    const EgressDecision verdict = rules.decide(host, port);
    d.verdict = verdict.allowed ? Verdict::allowed : Verdict::denied;
    d.because = verdict.allowed ? "through oms's egress proxy: " + verdict.rule : "oms's egress proxy: " + verdict.rule;
    if (!verdict.allowed) return d;
    if (auto pinned = rules.pinned_address(host))
        d.notes.push_back("pinned: the proxy connects to " + *pinned + " without resolving the name");
    else
        d.notes.push_back("the proxy resolves the name; a loopback, private, link-local or metadata address is "
                          "refused (pin it in [network] pinned_addresses to allow one)");
    d.notes.push_back("only through the proxy (HTTP_PROXY/HTTPS_PROXY/ALL_PROXY); a direct connection is refused");
    d.notes.push_back("data the command can read may leave through this host");
    return d;
}

void print_last_text(const std::optional<RunRecord>& record) {
    if (!record) {
        std::printf("no run has ended yet (oms run writes its record when the command exits)\n");
        return;
    }
    std::string command;
    for (const std::string& word : record->command) command += (command.empty() ? "" : " ") + word;
    std::printf("last run: %s\n  worktree: %s\n  backend: %s\n  ended: %s, exit status %d\n", command.c_str(),
                record->worktree.c_str(), record->backend.c_str(), record->finished.c_str(), record->exit_code);
    std::string hosts;
    for (const std::string& h : record->allow_hosts) hosts += (hosts.empty() ? "" : ", ") + h;
    std::printf("  allow_hosts: %s\n", hosts.empty() ? "none (no proxy ran)" : hosts.c_str());
    std::printf("refused: %zu\n", record->refused);
    for (const Violation& v : record->violations)
        std::printf("  %s  %s  (%s)\n", violation_target(v).c_str(), v.rule.c_str(), v.source.c_str());
    if (record->refused > record->violations.size())
        std::printf("  ... and %zu more not kept\n", record->refused - record->violations.size());
    if (record->hidden.empty()) return;
    std::printf("hidden from commands: %zu (a read of one fails: permission denied)\n", record->hidden.size());
    for (const std::string& path : record->hidden) std::printf("  %s\n", printable_text(path).c_str());
}

std::string joined_words(const std::vector<std::string>& words) {
    std::string text;
    for (const std::string& word : words) text += (text.empty() ? "" : " ") + word;
    return text;
}

void print_running_text(const std::vector<RunningRun>& runs) {
    if (runs.empty()) {
        std::printf("no run is going on in %s (oms explain --last: the last one that ended)\n", run_dir_base().c_str());
        return;
    }
    for (const RunningRun& run : runs) {
        if (run.command.empty()) std::printf("running: (no description: an older oms, or it could not be written)\n");
        else
            std::printf("running: %s\n  worktree: %s\n  backend: %s\n  started: %s, oms pid %ld\n",
                        printable_text(joined_words(run.command)).c_str(), printable_text(run.worktree).c_str(),
                        printable_text(run.backend).c_str(), run.started.c_str(), run.pid);
        std::printf("refused so far: %zu\n", run.refused_count);
        for (const Violation& v : run.refused)
            std::printf("  %s  %s  (%s)\n", violation_target(v).c_str(), printable_text(v.rule).c_str(),
                        v.source.c_str());
    }
}

void print_running_json(const std::vector<RunningRun>& runs) {
    JsonWriter json;
    json.begin_object().key("runs").begin_array();
    for (const RunningRun& run : runs) {
        json.begin_object().key("command").strings(run.command).key("worktree").value(run.worktree);
        json.key("backend").value(run.backend).key("started").value(run.started).key("pid").value(int64_t{run.pid});
        json.key("refused").value(static_cast<int64_t>(run.refused_count)).key("violations").begin_array();
        for (const Violation& v : run.refused)
            json.begin_object().key("host").value(v.host).key("port").value(int64_t{v.port}).key("rule").value(v.rule)
                .key("source").value(v.source).end_object();
        json.end_array().end_object();
    }
    json.end_array().end_object();
    std::printf("%s\n", json.str().c_str());
}

void print_last_json(const std::optional<RunRecord>& record) {
    JsonWriter json;
    json.begin_object().key("recorded").value(record.has_value());
    if (record) {
        json.key("command").strings(record->command).key("worktree").value(record->worktree);
        json.key("backend").value(record->backend).key("finished").value(record->finished);
        json.key("exit_code").value(int64_t{record->exit_code}).key("allow_hosts").strings(record->allow_hosts);
        json.key("refused").value(static_cast<int64_t>(record->refused)).key("violations").begin_array();
        for (const Violation& v : record->violations)
            json.begin_object().key("host").value(v.host).key("port").value(int64_t{v.port}).key("rule").value(v.rule)
                .key("source").value(v.source).end_object();
        json.end_array().key("hidden").strings(record->hidden);
    }
    json.end_object();
    std::printf("%s\n", json.str().c_str());
}

}  // namespace

int command_explain(const Args& args) {
    RunOptions options;
    std::vector<std::string> words;
    po::options_description description(kUsage);
    add_run_options(description, options);
    bool last = false;
    bool running = false;
    description.add_options()("json", po::bool_switch(&options.json), "machine-readable output")(
        "last", po::bool_switch(&last), "what the last run was refused")(
        "running", po::bool_switch(&running), "the runs going on now and what each was refused so far")(
        "help,h", "show this help");
    po::options_description positional_words;  // the access and the targets, not shown in --help
    positional_words.add_options()("words", po::value(&words), "");
    po::options_description all;
    all.add(description).add(positional_words);
    po::positional_options_description positional;
    positional.add("words", -1);
    po::variables_map values;
    po::store(po::command_line_parser(args).options(all).positional(positional).run(), values);
    po::notify(values);
    if (values.count("help")) {
        std::cout << description << "\n";
        return 0;
    }
    if (running) {
        if (!words.empty() || last) throw UserError(kExitUsage, "oms explain: --running takes no access, target or --last");
        const auto runs = running_runs(run_dir_base());
        options.json ? print_running_json(runs) : print_running_text(runs);
        return 0;
    }
    if (last) {
        if (!words.empty()) throw UserError(kExitUsage, "oms explain: --last takes no access or target");
        const auto record = read_run_record(state_dir());
        options.json ? print_last_json(record) : print_last_text(record);
        return 0;
    }
    if (words.size() < 2) throw UserError(kExitUsage, "oms explain: give an access and at least one target (see --help)");
    const auto access = access_from_name(words[0]);
    if (!access)
        throw UserError(kExitUsage, "oms explain: unknown access '" + words[0] +
                                        "' (read, write, exec, connect, listen or env)");
    options.sandbox = given(values, "sandbox");
    options.command = {"/bin/sh"};
    finish_run_options(options);

    Session session(options.worktree, BackendLoading::on_demand);
    BackendChoice backend = choose_backend(session.registry(), session.config(), options.sandbox, OMS_REPORT_FOR_HOST);
    RunDir run_dir;
    RunContext context(make_run_inputs(session, options, run_dir));
    Policy policy;
    assemble_policy(session.registry(), context, policy);
    const std::vector<uint16_t> published = published_ports(session.config(), options.publish);
    add_published_ports(policy, published);
    lower_policy_for_backend(*backend.record, context, policy);
    refuse_rules_unknown_to_backend(*backend.record, policy);

    const SemanticsInputs inputs = semantics_inputs(backend, context.inputs());
    const EgressRules egress = egress_rules(session.config(), options.allow_hosts);
    std::vector<Answer> answers;
    for (size_t i = 1; i < words.size(); ++i) {
        auto [resolved, notes] = resolve_target(*access, words[i], policy.env);
        Answer a{words[i], resolved, {}};
        const auto remote = *access == Access::connect ? remote_host(words[i], notes) : std::nullopt;
        a.decision = remote ? decide_egress(egress, inputs, remote->first, remote->second)
                            : decide(policy, inputs, *access, a.resolved);
        a.decision.notes.insert(a.decision.notes.begin(), notes.begin(), notes.end());
        // A listener's published port is the decision's own rule (rule_semantics.cpp); one the backend
        // does not publish still gets the line saying so.
        const bool listen_not_published = *access == Access::listen && !abi::has_kind(backend.record->rule_kinds,
                                                                                        OMS_RULE_NET_PUBLISH_LOOPBACK);
        if ((*access == Access::connect && !remote) || listen_not_published)
            add_published_note(a.decision, words[i], published, *backend.record);
        answers.push_back(std::move(a));
    }
    if (options.json)
        print_json(backend.record->id, *access, answers);
    else
        print_text(backend.record->id, *access, answers);
    return 0;
}

}  // namespace oms::core
