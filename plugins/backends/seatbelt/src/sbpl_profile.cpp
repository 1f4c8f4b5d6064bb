#include "sbpl_profile.hpp"

#include "sbpl_quote.hpp"

#include <oms/path.hpp>

#include <algorithm>
#include <map>
#include <utility>

namespace oms::seatbelt {

namespace {

using oms::sdk::Error;
using oms::sdk::Rule;

// ---------------------------------------------------------------- validation

std::string kind_name(oms_rule_kind kind) {
    const char* name = oms::sdk::rule_kind_name(kind);
    return name ? name : "kind " + std::to_string(kind);
}

bool is_path_kind(oms_rule_kind kind) {
    return kind == OMS_RULE_READ_DENY_TREE || kind == OMS_RULE_READ_ALLOW_TREE || kind == OMS_RULE_READ_DENY ||
           kind == OMS_RULE_WRITE_ALLOW_TREE || kind == OMS_RULE_WRITE_DENY || kind == OMS_RULE_NET_LISTEN_LOOPBACK ||
           kind == OMS_RULE_WRITE_SCRATCH_TREE;
}

[[noreturn]] void refuse(const Rule& rule, const std::string& why) {
    throw Error(OMS_ERR_INVALID, "seatbelt: rule " + kind_name(rule.kind) + " " +
                                     shell_word(rule.value) + " (" + std::string(rule.origin) + "): " + why);
}

// A NUL would cut the -D argument short, and an empty text would match
// everything or nothing: refuse both rather than render a different rule.
void validate(const Rule& rule) {
    if (rule.kind < OMS_RULE_READ_DENY_TREE || rule.kind > OMS_RULE_NET_CONNECT_RUN_PORT)
        throw Error(OMS_ERR_UNSUPPORTED, "seatbelt: cannot express rule " + kind_name(rule.kind));
    if (rule.value.find('\0') != std::string_view::npos) refuse(rule, "contains a NUL byte");
    if (is_path_kind(rule.kind) && (rule.value.empty() || rule.value[0] != '/'))
        refuse(rule, "is not an absolute path");
    if ((rule.kind == OMS_RULE_READ_DENY_SUFFIX || rule.kind == OMS_RULE_IPC_DENY_SERVICE) && rule.value.empty())
        refuse(rule, "is empty");
    if (rule.kind == OMS_RULE_WRITE_DENY_NAME &&
        (rule.value.empty() || rule.value == "." || rule.value == ".." || rule.value.find('/') != std::string_view::npos))
        refuse(rule, "is not a plain file or folder name");
    const bool is_port = rule.kind == OMS_RULE_NET_CONNECT_LOOPBACK || rule.kind == OMS_RULE_NET_CONNECT_RUN_PORT;
    if (is_port && (rule.number < 1 || rule.number > 65535)) refuse(rule, "port is not in 1..65535");
    if (rule.kind == OMS_RULE_NET_LISTEN_LOOPBACK && (rule.number < 0 || rule.number > 65535))
        refuse(rule, "port is not in 0..65535");
}

// ---------------------------------------------------------------- writer

// Accumulates the profile text and its parameters. A value used twice under
// the same prefix gets the same parameter name.
class ProfileWriter {
public:
    explicit ProfileWriter(const PathResolver& resolve) : resolve_(resolve) {}

    void line(const std::string& text) { profile_.text += text + "\n"; }
    void comment(const std::string& text) { line(";; " + text); }

    // (action operations filters...). Skipped when `filters` is empty: a rule
    // without filters would apply to every path, the opposite of the intent.
    void rule(const std::string& action, const std::string& operations, const std::vector<std::string>& filters) {
        if (filters.empty()) return;
        std::string text = "(" + action + " " + operations;
        for (const auto& filter : filters) text += "\n    " + filter;
        line(text + ")");
    }
    // A rule that applies to every target of its operations, on purpose.
    void rule_everything(const std::string& action, const std::string& operations) {
        line("(" + action + " " + operations + ")");
    }

    // (param "PREFIX_N") for `value`.
    std::string param(const std::string& prefix, const std::string& value, std::string_view origin) {
        auto key = std::make_pair(prefix, value);
        auto found = names_.find(key);
        if (found == names_.end()) {
            const std::string name = prefix + "_" + std::to_string(counters_[prefix]++);
            profile_.parameters.push_back({name, value, std::string(origin)});
            found = names_.emplace(key, name).first;
        }
        return "(param \"" + found->second + "\")";
    }

    // One (filter (param ...)) per spelling of each path of `rules`.
    std::vector<std::string> path_filters(const std::vector<Rule>& rules, const std::string& prefix,
                                          const std::string& filter) {
        std::vector<std::string> out;
        for (const Rule& rule : rules)
            for (const auto& spelling : spellings(std::string(rule.value), resolve_))
                add_unique(out, "(" + filter + " " + param(prefix, spelling, rule.origin) + ")");
        return out;
    }

    std::vector<std::string> spelled(const std::vector<Rule>& rules) const {
        std::vector<std::string> out;
        for (const Rule& rule : rules)
            for (const auto& spelling : spellings(std::string(rule.value), resolve_)) add_unique(out, spelling);
        return out;
    }

    void limit(const std::string& text) { profile_.limits.push_back(text); }
    Profile take() { return std::move(profile_); }

    static void add_unique(std::vector<std::string>& list, const std::string& item) {
        if (std::find(list.begin(), list.end(), item) == list.end()) list.push_back(item);
    }

private:
    const PathResolver& resolve_;
    Profile profile_;
    std::map<std::pair<std::string, std::string>, std::string> names_;
    std::map<std::string, int> counters_;
};

// Rules of one kind, in policy order.
std::vector<Rule> of_kind(const std::vector<Rule>& rules, oms_rule_kind kind) {
    std::vector<Rule> out;
    for (const Rule& rule : rules)
        if (rule.kind == kind) out.push_back(rule);
    return out;
}

// ---------------------------------------------------------------- sections

void write_header(ProfileWriter& out) {
    out.line("(version 1)");
    out.comment("oms seatbelt profile. Paths, patterns and service names are sandbox-exec");
    out.comment("-D parameters, read with (param \"NAME\"); the last matching rule wins.");
    out.line("(allow default)");
}

// Walking into an allowed root under a denied tree needs stat() on each
// folder on the way (realpath, getcwd, node's module lookup). Only metadata
// of those exact folders is reopened, never their listing or content.
std::vector<std::string> traversal_filters(ProfileWriter& out, const std::vector<Rule>& rules) {
    const auto deny_trees = out.spelled(of_kind(rules, OMS_RULE_READ_DENY_TREE));
    std::vector<std::string> filters;
    for (const auto& root : out.spelled(of_kind(rules, OMS_RULE_READ_ALLOW_TREE)))
        for (const auto& folder : ancestors(root))
            for (const auto& tree : deny_trees)
                if (sdk::path::is_inside(folder, tree))
                    ProfileWriter::add_unique(filters,
                                              "(literal " + out.param("TRAVERSE", folder, "path to an allowed root") + ")");
    return filters;
}

// A path that ends with the suffix; and, below a root a command may write,
// what lies below a folder so named: a command can make a keypair's name a
// folder there, and the user's later `cp` of the key onto that name puts it
// inside, under its own base name. Only below a write root: a folder above
// the roots that happens to be named so (a HOME called `x-keypair.json`)
// was not made by a command and hides nothing.
std::vector<std::string> suffix_filters(ProfileWriter& out, const std::vector<Rule>& rules) {
    std::vector<std::string> filters;
    std::vector<Rule> write_roots = of_kind(rules, OMS_RULE_WRITE_ALLOW_TREE);
    for (const Rule& scratch : of_kind(rules, OMS_RULE_WRITE_SCRATCH_TREE)) write_roots.push_back(scratch);
    const std::vector<std::string> roots = out.spelled(write_roots);
    for (const Rule& rule : of_kind(rules, OMS_RULE_READ_DENY_SUFFIX)) {
        ProfileWriter::add_unique(
            filters, "(regex " + out.param("READ_DENY_SUFFIX", suffix_regex(rule.value), rule.origin) + ")");
        for (const std::string& root : roots)
            ProfileWriter::add_unique(
                filters, "(regex " +
                             out.param("READ_DENY_SUFFIX_FOLDER", suffix_folder_regex(root, rule.value), rule.origin) +
                             ")");
    }
    return filters;
}

// A read allow naming exactly a file that a suffix rule matches exempts that
// file (keypair_exempt, docs/rule-semantics.md); the read denies are repeated
// after it so they still win.
void write_keypair_exemptions(ProfileWriter& out, const std::vector<Rule>& rules) {
    std::vector<Rule> exempt;
    for (const Rule& allow : of_kind(rules, OMS_RULE_READ_ALLOW_TREE))
        for (const Rule& suffix : of_kind(rules, OMS_RULE_READ_DENY_SUFFIX))
            if (allow.value.size() >= suffix.value.size() &&
                allow.value.substr(allow.value.size() - suffix.value.size()) == suffix.value) {
                exempt.push_back(allow);
                break;
            }
    if (exempt.empty()) return;
    out.comment("Reads: files exempt from the keypair rule by name; the secrets stay denied.");
    out.rule("allow", "file-read*", out.path_filters(exempt, "KEYPAIR_EXEMPT", "literal"));
    out.rule("deny", "file-read*", out.path_filters(of_kind(rules, OMS_RULE_READ_DENY), "READ_DENY", "subpath"));
}

// Every run's folder in the shared base, by name, in each spelling of the base.
std::vector<std::string> run_folder_filters(ProfileWriter& out, const RunFolder& run) {
    std::vector<std::string> filters;
    if (run.own.empty()) return filters;
    for (const auto& base : out.spelled({Rule{OMS_RULE_WRITE_ALLOW_TREE, run.base, 0, "run folders"}}))
        ProfileWriter::add_unique(
            filters, "(regex " + out.param("RUN_FOLDERS", "^" + regex_literal(base) + "/" + OMS_RUN_DIR_PREFIX,
                                             "every run's folder") + ")");
    return filters;
}

std::vector<std::string> own_run_folder_filters(ProfileWriter& out, const RunFolder& run) {
    if (run.own.empty()) return {};
    return out.path_filters({Rule{OMS_RULE_READ_ALLOW_TREE, run.own, 0, "this run's folder"}}, "RUN_OWN", "subpath");
}

// The other runs' folders are closed, this run's is reopened; a rule after
// this (a secret, .git) still wins inside it.
void write_run_folder_reads(ProfileWriter& out, const RunFolder& run) {
    const auto others = run_folder_filters(out, run);
    if (others.empty()) return;
    out.comment("Reads: close every run's folder in the shared temp folder, reopen this run's.");
    out.rule("deny", "file-read*", others);
    out.rule("allow", "file-read*", own_run_folder_filters(out, run));
}

void write_reads(ProfileWriter& out, const std::vector<Rule>& rules, const RunFolder& run) {
    out.comment("Reads: deny everything under HOME.");
    out.rule("deny", "file-read*", out.path_filters(of_kind(rules, OMS_RULE_READ_DENY_TREE), "READ_DENY_TREE", "subpath"));
    out.comment("Reads: reopen the worktree and the toolchain roots.");
    out.rule("allow", "file-read*",
             out.path_filters(of_kind(rules, OMS_RULE_READ_ALLOW_TREE), "READ_ALLOW_TREE", "subpath"));
    out.rule("allow", "file-read-metadata", traversal_filters(out, rules));
    write_run_folder_reads(out, run);
    out.comment("Reads: deny the secrets again, inside allowed roots too.");
    auto filters = out.path_filters(of_kind(rules, OMS_RULE_READ_DENY), "READ_DENY", "subpath");
    for (const auto& filter : suffix_filters(out, rules)) filters.push_back(filter);
    out.rule("deny", "file-read*", filters);
    write_keypair_exemptions(out, rules);
}

void write_ipc(ProfileWriter& out, const std::vector<Rule>& rules) {
    std::vector<std::string> filters;
    for (const Rule& rule : of_kind(rules, OMS_RULE_IPC_DENY_SERVICE))
        ProfileWriter::add_unique(
            filters, "(global-name " + out.param("IPC_DENY_SERVICE", std::string(rule.value), rule.origin) + ")");
    out.comment("Keychain: deny the security services.");
    out.rule("deny", "mach-lookup", filters);
}

// A path with a component called `name` ("/a/.git" and "/a/.git/hooks/x"):
// two regexes rather than one alternation, the plainest Seatbelt reads.
std::vector<std::string> name_filters(ProfileWriter& out, const std::vector<Rule>& rules) {
    std::vector<std::string> filters;
    for (const Rule& rule : of_kind(rules, OMS_RULE_WRITE_DENY_NAME)) {
        const std::string component = "/" + regex_literal(rule.value);
        ProfileWriter::add_unique(filters, "(regex " + out.param("WRITE_DENY_NAME", component + "$", rule.origin) + ")");
        ProfileWriter::add_unique(filters, "(regex " + out.param("WRITE_DENY_NAME", component + "/", rule.origin) + ")");
    }
    return filters;
}

void write_writes(ProfileWriter& out, const std::vector<Rule>& rules, const RunFolder& run) {
    out.comment("Writes: deny all, allow the write roots, deny .git and pinned files again.");
    out.rule_everything("deny", "file-write*");
    out.rule("allow", "file-write*",
             out.path_filters(of_kind(rules, OMS_RULE_WRITE_ALLOW_TREE), "WRITE_ALLOW_TREE", "subpath"));
    const auto others = run_folder_filters(out, run);
    if (!others.empty()) {
        std::vector<Rule> own;  // the private HOME and TMPDIR
        for (const Rule& rule : of_kind(rules, OMS_RULE_WRITE_ALLOW_TREE))
            if (sdk::path::is_inside(std::string(rule.value), run.own)) own.push_back(rule);
        out.comment("Writes: close every run's folder in the shared temp folder (and names for the next");
        out.comment("run) and that folder itself (moved away, it would take running runs' folders out of");
        out.comment("these rules), then allow the write roots in this run's folder again.");
        auto closed = others;
        for (const auto& base : out.path_filters({Rule{OMS_RULE_WRITE_DENY, run.base, 0, "the run folders' folder"}},
                                                 "RUN_BASE", "literal"))
            closed.push_back(base);
        out.rule("deny", "file-write*", closed);
        out.rule("allow", "file-write*", out.path_filters(own, "WRITE_ALLOW_TREE", "subpath"));
    }
    out.rule("deny", "file-write*", out.path_filters(of_kind(rules, OMS_RULE_WRITE_DENY), "WRITE_DENY", "subpath"));
    const auto names = name_filters(out, rules);
    if (!names.empty()) {
        out.comment("Writes: deny every path through a protected name (nested .git), wherever it is,");
        out.comment("also one made or moved during the run: stricter than entries found at run start.");
        out.rule("deny", "file-write*", names);
        for (const Rule& rule : of_kind(rules, OMS_RULE_WRITE_DENY_NAME))
            out.limit("every path through a component named " + shell_word(rule.value) +
                      " is write-denied, also one the command creates: `git init` or `git clone` inside a write "
                      "root fails under this backend");
    }
    const auto scratch = out.path_filters(of_kind(rules, OMS_RULE_WRITE_SCRATCH_TREE), "WRITE_SCRATCH_TREE", "subpath");
    if (!scratch.empty()) {
        out.comment("Writes: scratch trees stay read-only. Seatbelt has no per-run layer to throw away,");
        out.comment("so writes there are denied rather than allowed to reach the host.");
        out.rule("deny", "file-write*", scratch);
        out.limit("scratch trees are read-only: Seatbelt has no throw-away write layer, so tools that write "
                  "there (say, Cargo extracting a crate) fail instead");
    }
}

// rename(2) of a folder changes the path of everything below it, so a denied
// path could be read or written under its new name. Seatbelt checks the
// source of a rename (and an unlink) as file-write-unlink: deny it for every
// denied path, everything below it, and each folder above it.
void write_unlinks(ProfileWriter& out, const std::vector<Rule>& rules) {
    auto filters = out.path_filters(of_kind(rules, OMS_RULE_READ_DENY_TREE), "READ_DENY_TREE", "literal");
    for (auto kind : {OMS_RULE_READ_DENY, OMS_RULE_WRITE_DENY}) {
        const std::string prefix = kind == OMS_RULE_READ_DENY ? "READ_DENY" : "WRITE_DENY";
        for (const auto& filter : out.path_filters(of_kind(rules, kind), prefix, "subpath")) filters.push_back(filter);
    }
    std::vector<std::string> protected_paths;
    for (auto kind : {OMS_RULE_READ_DENY_TREE, OMS_RULE_READ_DENY, OMS_RULE_WRITE_DENY})
        for (const auto& path : out.spelled(of_kind(rules, kind))) protected_paths.push_back(path);
    for (const auto& path : protected_paths)
        for (const auto& folder : ancestors(path))
            ProfileWriter::add_unique(filters, "(literal " + out.param("PARENT", folder, "folder above a denied path") + ")");
    for (const auto& filter : suffix_filters(out, rules)) filters.push_back(filter);
    out.comment("Moves and unlinks: a denied path, what is below it, and every folder above it.");
    out.rule("deny", "file-write-unlink", filters);
}

// The run's own port (NET_CONNECT_RUN_PORT) is allowed like a fixed one:
// each run has a profile of its own, so opening it is this run's alone.
std::vector<int64_t> connect_ports(const std::vector<Rule>& rules) {
    std::vector<int64_t> ports;
    for (oms_rule_kind kind : {OMS_RULE_NET_CONNECT_LOOPBACK, OMS_RULE_NET_CONNECT_RUN_PORT})
        for (const Rule& rule : of_kind(rules, kind))
            if (std::find(ports.begin(), ports.end(), rule.number) == ports.end()) ports.push_back(rule.number);
    return ports;
}

// NET_LISTEN_LOOPBACK's number is one port, or 0 for every allowed port.
std::vector<int64_t> listen_ports(const std::vector<Rule>& rules) {
    std::vector<int64_t> ports;
    for (const Rule& rule : of_kind(rules, OMS_RULE_NET_LISTEN_LOOPBACK)) {
        const auto wanted = rule.number == 0 ? connect_ports(rules) : std::vector<int64_t>{rule.number};
        for (int64_t port : wanted)
            if (std::find(ports.begin(), ports.end(), port) == ports.end()) ports.push_back(port);
    }
    return ports;
}

std::vector<std::string> ip_filters(const std::string& side, const std::vector<int64_t>& ports) {
    std::vector<std::string> filters;
    for (int64_t port : ports) filters.push_back("(" + side + " ip \"localhost:" + std::to_string(port) + "\")");
    return filters;
}

// Outbound uses `remote ip` only: a `local ip` rule on network-outbound also
// matches sockets that are not bound yet, which would open all egress.
void write_network(ProfileWriter& out, const std::vector<Rule>& rules) {
    out.comment("Network: deny all, allow loopback connections to the allowed ports.");
    out.rule_everything("deny", "network*");
    out.rule("allow", "network-outbound", ip_filters("remote", connect_ports(rules)));
    const auto listen = listen_ports(rules);
    if (listen.empty()) return;
    out.comment("Network: loopback listening for the trusted Surfpool binary.");
    out.rule("allow", "network-bind network-inbound", ip_filters("local", listen));
    for (const Rule& rule : of_kind(rules, OMS_RULE_NET_LISTEN_LOOPBACK))
        out.limit("loopback listening is allowed to every process of the command, not only " + shell_word(rule.value) +
                  ": Seatbelt has no per-binary network filter");
}

void write_outside_actions(ProfileWriter& out) {
    out.comment("Acting outside the sandbox: Apple Events and LaunchServices.");
    out.rule_everything("deny", "appleevent-send");
    out.rule_everything("deny", "lsopen");
}

}  // namespace

Profile render_profile(const std::vector<Rule>& rules, const PathResolver& resolve, const RunFolder& run) {
    for (const Rule& rule : rules) validate(rule);
    ProfileWriter out(resolve);
    write_header(out);
    write_reads(out, rules, run);
    write_ipc(out, rules);
    write_writes(out, rules, run);
    write_unlinks(out, rules);
    write_network(out, rules);
    write_outside_actions(out);
    return out.take();
}

}  // namespace oms::seatbelt
