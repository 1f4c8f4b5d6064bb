// docs/rule-semantics.md as code. Each function below is one row group of
// the table there, in precedence order: the first rule that decides wins.
#include "oms/core/rule_semantics.hpp"

#include "oms/core/account_name.hpp"

#include <oms/install_roots.hpp>
#include <oms/path.hpp>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>

namespace oms::core {

namespace {

namespace fs = std::filesystem;

bool exists(const std::string& path) {
    std::error_code error;
    return fs::exists(fs::symlink_status(path, error));
}

bool is_directory(const std::string& path) {
    std::error_code error;
    return fs::is_directory(fs::symlink_status(path, error));
}

// The innermost rule of `kind` whose path holds `path` (the most specific
// reason to show; precedence between kinds is the caller's).
const PolicyRule* covering(const Policy& policy, oms_rule_kind kind, const std::string& path) {
    const PolicyRule* best = nullptr;
    for (const PolicyRule& rule : policy.rules)
        if (rule.kind == kind && sdk::path::is_inside(path, rule.value) &&
            (!best || rule.value.size() > best->value.size()))
            best = &rule;
    return best;
}

const PolicyRule* suffix_rule(const Policy& policy, const std::string& path) {
    for (const PolicyRule& rule : policy.rules)
        if (rule.kind == OMS_RULE_READ_DENY_SUFFIX && !rule.value.empty() && path.size() >= rule.value.size() &&
            path.compare(path.size() - rule.value.size(), rule.value.size(), rule.value) == 0)
            return &rule;
    return nullptr;
}

Decision decided(Verdict verdict, const PolicyRule* rule, std::string because) {
    Decision d;
    d.verdict = verdict;
    if (rule) d.rule = *rule;
    d.because = std::move(because);
    return d;
}

// The roots whose writes reach the host: a scratch tree's are thrown away.
std::vector<std::string> host_write_roots_of(const Policy& policy) {
    std::vector<std::string> out;
    for (const PolicyRule& rule : policy.rules)
        if (rule.kind == OMS_RULE_WRITE_ALLOW_TREE) out.push_back(rule.value);
    return out;
}

// The install folder (oms/install_roots.hpp) that landlock leaves unsearched
// holding the read root `root`, or "".
std::string unsearched_install(const Policy& policy, const SemanticsInputs& in, const std::string& root) {
    return install_roots::unsearched_install_root(root, in.home, host_write_roots_of(policy));
}

// A root landlock may search below HOME: a read root, or a scratch tree
// (readable, its content the host's).
bool readable_root_under_home(const PolicyRule& rule, const SemanticsInputs& in) {
    return (rule.kind == OMS_RULE_READ_ALLOW_TREE || rule.kind == OMS_RULE_WRITE_SCRATCH_TREE) && !in.home.empty() &&
           sdk::path::is_inside(rule.value, in.home);
}

// Where landlock looks for keypair files at run start: the worktree, and the
// read roots below HOME (toolchains) but the install folders no command can
// write. Elsewhere a suffix rule hides nothing.
bool landlock_walks(const Policy& policy, const SemanticsInputs& in, const std::string& path) {
    if (sdk::path::is_inside(path, in.worktree)) return true;
    for (const PolicyRule& rule : policy.rules)
        if (readable_root_under_home(rule, in) && rule.value != in.home && sdk::path::is_inside(path, rule.value) &&
            unsearched_install(policy, in, rule.value).empty())
            return true;
    return false;
}

// The unsearched install folder `path` lies in, when landlock leaves it out.
std::string landlock_unsearched(const Policy& policy, const SemanticsInputs& in, const std::string& path) {
    if (landlock_walks(policy, in, path)) return "";
    for (const PolicyRule& rule : policy.rules)
        if (readable_root_under_home(rule, in) && sdk::path::is_inside(path, rule.value))
            if (std::string install = unsearched_install(policy, in, rule.value); !install.empty()) return install;
    return "";
}

bool docker_mounted(const SemanticsInputs& in, const std::string& path, bool writable) {
    if (sdk::path::is_inside(path, in.worktree)) return true;
    for (const auto& mount : in.mounts_read_write)
        if (sdk::path::is_inside(path, mount)) return true;
    if (writable) return false;
    for (const auto& mount : in.mounts_read_only)
        if (sdk::path::is_inside(path, mount)) return true;
    return false;
}

// A read allow naming exactly this path: it outranks the suffix rules (the
// user's keypair_exempt), docker aside (it cannot grant it: stricter).
const PolicyRule* exact_read_allow(const Policy& policy, const SemanticsInputs& in, const std::string& path) {
    if (in.family == BackendFamily::docker) return nullptr;
    for (const PolicyRule& rule : policy.rules)
        if (rule.kind == OMS_RULE_READ_ALLOW_TREE && rule.value == path) return &rule;
    return nullptr;
}

// A keypair file the backend hides, if any: seatbelt matches the text of
// every path; landlock and docker cover the files present at run start in
// what they walk. An exact read allow exempts the file (allowed).
std::optional<Decision> keypair_hidden(const Policy& policy, const SemanticsInputs& in, const std::string& path) {
    const PolicyRule* rule = suffix_rule(policy, path);
    if (!rule) return std::nullopt;
    if (const PolicyRule* exempt = exact_read_allow(policy, in, path))
        return decided(Verdict::allowed, exempt, "exempt from the keypair rule '" + rule->value + "' by name");
    std::string where;
    switch (in.family) {
    case BackendFamily::unconfined:
    case BackendFamily::unknown: return std::nullopt;
    case BackendFamily::seatbelt: break;
    case BackendFamily::landlock:
        if (!landlock_walks(policy, in, path) || !exists(path)) return std::nullopt;
        where = " (found at run start in the worktree or a read root under HOME)";
        break;
    case BackendFamily::docker:
        if (!docker_mounted(in, path, false) || !exists(path)) return std::nullopt;
        where = " (found at run start in a mount)";
        break;
    }
    if (in.family == BackendFamily::seatbelt)
        return decided(Verdict::denied, rule, "ends with '" + rule->value + "': the keypair rule refuses it");
    // landlock covers a file with a device that refuses to open; a folder
    // with a keypair's name with an empty folder.
    if (in.family == BackendFamily::landlock && !is_directory(path))
        return decided(Verdict::denied, rule,
                       "ends with '" + rule->value + "': the keypair rule hides it" + where +
                           "; opening it fails (permission denied)");
    return decided(Verdict::hidden, rule,
                   "ends with '" + rule->value + "': the keypair rule hides it" + where + "; a command cannot read its content");
}

// Landlock opens only these nodes of /dev (a raw disk there holds HOME too).
bool landlock_device_allowed(const std::string& path) {
    static const char* const devices[] = {"/dev/random", "/dev/urandom", "/dev/shm", "/dev/mqueue", "/dev/null",
                                          "/dev/zero",   "/dev/full",    "/dev/tty", "/dev/pts",    "/dev/ptmx"};
    return std::any_of(std::begin(devices), std::end(devices),
                       [&](const char* d) { return sdk::path::is_inside(path, d); });
}

// Landlock gives write roots read rights too, unless they hold HOME
// (sandbox_plan.cpp): the write or scratch root that makes `path` readable.
const PolicyRule* landlock_readable_write_root(const Policy& policy, const SemanticsInputs& in, const std::string& path) {
    for (auto kind : {OMS_RULE_WRITE_SCRATCH_TREE, OMS_RULE_WRITE_ALLOW_TREE}) {
        const PolicyRule* rule = covering(policy, kind, path);
        if (rule && !sdk::path::is_inside(in.home, rule->value)) return rule;
    }
    return nullptr;
}

// A folder on the way from `/` to HOME.
bool above_home(const SemanticsInputs& in, const std::string& path) {
    return !in.home.empty() && path != in.home && sdk::path::is_inside(in.home, path);
}

// Landlock without the read denies: the read roots, the write roots that do
// not hold HOME, and everything outside the denied tree.
bool landlock_opens(const Policy& policy, const SemanticsInputs& in, const std::string& path) {
    return covering(policy, OMS_RULE_READ_ALLOW_TREE, path) || landlock_readable_write_root(policy, in, path) ||
           !covering(policy, OMS_RULE_READ_DENY_TREE, path);
}

// Landlock replaces HOME inside the run with a read-only skeleton holding
// only the granted paths (home_skeleton_plan.cpp in the backend), unless a
// mount that stays writable holds HOME: a write or scratch root other than
// the private temp folders (HOME is bound back into those read-only).
bool landlock_home_skeleton(const Policy& policy, const SemanticsInputs& in) {
    std::error_code error;
    if (in.home.empty() || in.home == "/" || !fs::is_directory(in.home, error)) return false;
    for (const PolicyRule& rule : policy.rules) {
        const bool write_root = rule.kind == OMS_RULE_WRITE_ALLOW_TREE || rule.kind == OMS_RULE_WRITE_SCRATCH_TREE;
        const bool private_temp = rule.kind == OMS_RULE_WRITE_ALLOW_TREE && (rule.value == "/tmp" || rule.value == "/var/tmp");
        if (write_root && !private_temp && sdk::path::is_inside(in.home, rule.value)) return false;
    }
    return true;
}

// Landlock grants listing from `/` down (read_dir only) when nothing under
// HOME could be listed through it: HOME is a skeleton, or there is no HOME.
bool landlock_lists_from_root(const Policy& policy, const SemanticsInputs& in) {
    return in.home.empty() || landlock_home_skeleton(policy, in);
}

// A folder of HOME's skeleton: HOME itself, or one on the way to a path the
// policy grants (a read, write or scratch root, the worktree).
bool landlock_skeleton_folder(const Policy& policy, const SemanticsInputs& in, const std::string& path) {
    if (path == in.home || sdk::path::is_inside(in.worktree, path)) return true;
    return std::any_of(policy.rules.begin(), policy.rules.end(), [&](const PolicyRule& rule) {
        const bool root = rule.kind == OMS_RULE_READ_ALLOW_TREE || rule.kind == OMS_RULE_WRITE_ALLOW_TREE ||
                          rule.kind == OMS_RULE_WRITE_SCRATCH_TREE;
        return root && rule.value != path && sdk::path::is_inside(rule.value, path);
    });
}

// Under HOME and opened by no root: absent from the skeleton (its folders on
// the way to a granted path list only the granted names), or refused by
// Landlock when there is no skeleton.
Decision landlock_closed_home(const Policy& policy, const SemanticsInputs& in, const std::string& path,
                              const PolicyRule* rule) {
    if (!landlock_home_skeleton(policy, in)) return decided(Verdict::denied, rule, "below a denied tree and in no read root");
    if (landlock_skeleton_folder(policy, in, path))
        return decided(Verdict::hidden, rule,
                       "a folder of HOME's skeleton: inside the run it lists only the granted paths below it, "
                       "nothing else of HOME");
    return decided(Verdict::hidden, rule,
                   "under HOME and in no granted path: HOME inside the run holds only the granted paths, so this "
                   "name is absent");
}

// A read deny: seatbelt refuses the access; landlock and docker cover the
// path with an empty read-only file or folder, so what lies below a hidden
// folder is absent. Landlock does not cover the path when no root opens it
// (a secret under HOME): the closed HOME decides (absent from the skeleton;
// without one, the covered path itself is refused and what lies below it absent).
Decision read_denied(const Policy& policy, const SemanticsInputs& in, const std::string& path, const PolicyRule& rule) {
    if (in.family == BackendFamily::seatbelt)
        return decided(Verdict::denied, &rule, "denied again by a read deny, inside allowed roots too");
    if (in.family == BackendFamily::landlock && !landlock_opens(policy, in, path) &&
        (path == rule.value || landlock_home_skeleton(policy, in)))
        return landlock_closed_home(policy, in, path, &rule);
    return decided(Verdict::hidden, &rule,
                   path == rule.value ? "covered by an empty read-only file or folder"
                                      : "below a folder covered by an empty one: absent");
}

Decision decide_read_rules(const Policy& policy, const SemanticsInputs& in, const std::string& path) {
    if (in.family == BackendFamily::unconfined) return decided(Verdict::allowed, nullptr, "no sandbox");
    if (const PolicyRule* rule = covering(policy, OMS_RULE_READ_DENY, path)) return read_denied(policy, in, path, *rule);
    if (auto hidden = keypair_hidden(policy, in, path)) return *hidden;
    if (in.family == BackendFamily::docker) {
        if (docker_mounted(in, path, false)) return decided(Verdict::allowed, nullptr, "mounted into the container");
        return decided(Verdict::hidden, nullptr,
                       "not mounted into the container: the image's own file of that name, if any, is read");
    }
    if (const PolicyRule* rule = covering(policy, OMS_RULE_READ_ALLOW_TREE, path))
        return decided(Verdict::allowed, rule, "inside a read root");
    if (in.family == BackendFamily::landlock) {
        if (const PolicyRule* rule = landlock_readable_write_root(policy, in, path))
            return decided(Verdict::allowed, rule, "inside a write root (landlock gives write roots read rights)");
        if (path == "/dev" && landlock_lists_from_root(policy, in))
            return decided(Verdict::allowed, nullptr, "/dev can be listed; only some of its nodes open");
        if (sdk::path::is_inside(path, "/dev") && !landlock_device_allowed(path))
            return decided(Verdict::denied, nullptr, "a device node landlock does not open");
    }
    if (const PolicyRule* rule = covering(policy, OMS_RULE_READ_DENY_TREE, path)) {
        if (in.family == BackendFamily::landlock) return landlock_closed_home(policy, in, path, rule);
        return decided(Verdict::denied, rule, "below a denied tree and in no read root");
    }
    if (in.family == BackendFamily::landlock && above_home(in, path) && !landlock_lists_from_root(policy, in))
        return decided(Verdict::denied, nullptr,
                       "a folder above HOME: it cannot be listed when a write root holds HOME (no skeleton)");
    if (in.family == BackendFamily::landlock && above_home(in, path))
        return decided(Verdict::allowed, nullptr, "a folder above HOME: it can be listed (names only)");
    return decided(Verdict::allowed, nullptr, "outside HOME: reads stay open");
}

// Landlock gives each run its own /tmp and /var/tmp; the roots the policy
// names inside them (a worktree there, the private HOME) are bound back.
void add_private_temp_note(const SemanticsInputs& in, const std::string& path, Decision& d) {
    if (in.family != BackendFamily::landlock) return;
    for (const char* temp : {"/tmp", "/var/tmp"}) {
        const bool bound_back = d.rule && d.rule->value != temp;
        if (sdk::path::is_inside(path, temp) && !bound_back)
            d.notes.push_back("the run has its own empty " + std::string(temp) +
                              ": the host's files there are not visible, and what the command writes there is "
                              "thrown away");
    }
}

// What the verdict alone does not say: a keypair name that is not hidden
// now, a private /tmp.
void add_read_notes(const Policy& policy, const SemanticsInputs& in, const std::string& path, Decision& d) {
    const PolicyRule* suffix = suffix_rule(policy, path);
    const bool exempt = d.rule && d.rule->kind == OMS_RULE_READ_ALLOW_TREE && d.rule->value == path;
    const std::string install =
        suffix && in.family == BackendFamily::landlock ? landlock_unsearched(policy, in, path) : "";
    if (suffix && d.verdict == Verdict::allowed && !exempt && !install.empty())
        d.notes.push_back("ends with '" + suffix->value + "' (" + suffix->origin + ") but is not hidden: " + install +
                          " is an install folder landlock does not search for keypair files (only your own "
                          "installs write it, no command can; searched only while a link in the worktree leads "
                          "there)");
    else if (suffix && d.verdict == Verdict::allowed && !exempt)
        d.notes.push_back("ends with '" + suffix->value + "' (" + suffix->origin +
                          ") but is not hidden: this backend hides only the keypair files present at run start in "
                          "what it searches (landlock: the worktree and the read roots under HOME; docker: the "
                          "mounts)");
    if (in.family == BackendFamily::landlock &&
        (sdk::path::is_inside(path, "/run") || sdk::path::is_inside(path, "/var/run")))
        d.notes.push_back("landlock also hides daemon sockets and runtime folders here (docker, containerd, "
                          "/run/user, ...; [plugin.landlock] hide): oms policy lists them");
    add_private_temp_note(in, path, d);
}

Decision decide_read(const Policy& policy, const SemanticsInputs& in, const std::string& path) {
    Decision d = decide_read_rules(policy, in, path);
    add_read_notes(policy, in, path, d);
    return d;
}

// A component of `path` named like a WRITE_DENY_NAME rule. Landlock and
// docker protect the entries present at run start in what they walk; seatbelt
// every path through such a component.
const PolicyRule* denied_by_name(const Policy& policy, const SemanticsInputs& in, const std::string& path) {
    for (const PolicyRule& rule : policy.rules) {
        if (rule.kind != OMS_RULE_WRITE_DENY_NAME) continue;
        for (size_t at = path.find("/" + rule.value); at != std::string::npos;
             at = path.find("/" + rule.value, at + 1)) {
            const size_t end = at + 1 + rule.value.size();
            if (end != path.size() && path[end] != '/') continue;
            const std::string entry = path.substr(0, end);
            if (in.family == BackendFamily::seatbelt) return &rule;
            // Landlock walks the worktree only (the other write roots are
            // new each run or hold Cargo's bare repositories); docker its mounts.
            const bool walked = in.family == BackendFamily::landlock ? sdk::path::is_inside(entry, in.worktree)
                                                                     : docker_mounted(in, entry, true);
            if (walked && exists(entry)) return &rule;
        }
    }
    return nullptr;
}

Decision decide_write(const Policy& policy, const SemanticsInputs& in, const std::string& path) {
    if (in.family == BackendFamily::unconfined) return decided(Verdict::allowed, nullptr, "no sandbox");
    const bool covers_with_mounts = in.family != BackendFamily::seatbelt;
    if (covers_with_mounts) {
        if (const PolicyRule* rule = covering(policy, OMS_RULE_READ_DENY, path))
            return decided(Verdict::denied, rule, "a read-denied path: its cover is read-only");
        auto hidden = keypair_hidden(policy, in, path);
        if (hidden && hidden->verdict != Verdict::allowed && hidden->rule)
            return decided(Verdict::denied, &*hidden->rule, "a hidden keypair file: its cover is read-only");
    }
    if (const PolicyRule* rule = covering(policy, OMS_RULE_WRITE_DENY, path))
        return decided(Verdict::denied, rule, "write-denied again inside the write roots");
    if (const PolicyRule* rule = denied_by_name(policy, in, path))
        return decided(Verdict::denied, rule, "passes through a protected name");
    if (in.family == BackendFamily::docker) {
        if (docker_mounted(in, path, true)) return decided(Verdict::allowed, nullptr, "a writable mount");
        return decided(Verdict::denied, nullptr, "not a writable mount: the container's root is read-only");
    }
    if (const PolicyRule* rule = covering(policy, OMS_RULE_WRITE_SCRATCH_TREE, path)) {
        if (in.family == BackendFamily::seatbelt)
            return decided(Verdict::denied, rule, "a scratch tree: seatbelt has no throw-away layer, writes are denied");
        Decision d = decided(Verdict::allowed, rule, "a scratch tree");
        d.notes.push_back("writes there are thrown away when the run ends");
        return d;
    }
    if (const PolicyRule* rule = covering(policy, OMS_RULE_WRITE_ALLOW_TREE, path)) {
        Decision d = decided(Verdict::allowed, rule, "inside a write root");
        add_private_temp_note(in, path, d);
        return d;
    }
    return decided(Verdict::denied, nullptr, "in no write root: read-only");
}

struct Endpoint {
    std::string host;
    long port = -1;
};

std::optional<Endpoint> parse_endpoint(const std::string& target) {
    Endpoint e;
    std::string port = target;
    const size_t colon = target.rfind(':');
    if (colon != std::string::npos) {
        e.host = target.substr(0, colon);
        port = target.substr(colon + 1);
    }
    if (e.host.size() >= 2 && e.host.front() == '[' && e.host.back() == ']') e.host = e.host.substr(1, e.host.size() - 2);
    if (port.empty() || port.find_first_not_of("0123456789") != std::string::npos || port.size() > 5)
        return std::nullopt;
    e.port = std::strtol(port.c_str(), nullptr, 10);
    if (e.port > 65535) return std::nullopt;
    return e;
}

bool is_loopback(const std::string& host) {
    return host.empty() || host == "localhost" || host == "::1" || host.rfind("127.", 0) == 0;
}

const PolicyRule* connect_rule(const Policy& policy, long port) {
    for (const PolicyRule& rule : policy.rules)
        if (is_port_rule(rule) && rule.number == port) return &rule;
    return nullptr;
}

// Whether this program is a trusted listener: landlock then runs it on the
// host's network with the port allow-list, instead of a private namespace.
bool shares_host_network(const Policy& policy, const SemanticsInputs& in) {
    std::error_code error;
    if (in.program.empty()) return false;
    const fs::path program = fs::weakly_canonical(in.program, error);
    return std::any_of(policy.rules.begin(), policy.rules.end(), [&](const PolicyRule& rule) {
        return rule.kind == OMS_RULE_NET_LISTEN_LOOPBACK && program == fs::weakly_canonical(rule.value, error);
    });
}

Decision decide_connect(const Policy& policy, const SemanticsInputs& in, const Endpoint& e) {
    if (in.family == BackendFamily::unconfined) return decided(Verdict::allowed, nullptr, "no sandbox");
    if (!is_loopback(e.host))
        return decided(Verdict::denied, nullptr, "no rule kind allows hosts other than loopback");
    const PolicyRule* rule = connect_rule(policy, e.port);
    if (!rule) {
        Decision d = decided(Verdict::denied, nullptr, "no loopback connect rule names this port");
        if (in.family == BackendFamily::landlock && !shares_host_network(policy, in))
            d.notes.push_back("a server the command starts on this port inside is reachable (private loopback)");
        return d;
    }
    // landlock and docker relay 127.0.0.1:PORT only; seatbelt's profile
    // names localhost, whatever address it resolves to.
    const bool relayed_address = e.host.empty() || e.host == "localhost" || e.host == "127.0.0.1";
    if (in.family == BackendFamily::docker || (in.family == BackendFamily::landlock && !shares_host_network(policy, in))) {
        if (!relayed_address)
            return decided(Verdict::denied, rule, "only 127.0.0.1 is relayed to the host (not ::1 or 127.0.0.2)");
        return decided(Verdict::allowed, rule, "relayed to the host's 127.0.0.1 on this port by oms");
    }
    return decided(Verdict::allowed, rule, "a loopback port the policy allows");
}

// The trusted-listener rule that lets this program listen on `port`.
const PolicyRule* listen_rule(const Policy& policy, const SemanticsInputs& in, long port) {
    for (const PolicyRule& rule : policy.rules) {
        if (rule.kind != OMS_RULE_NET_LISTEN_LOOPBACK) continue;
        const bool port_matches = rule.number == port || (rule.number == 0 && connect_rule(policy, port));
        if (!port_matches) continue;
        // Seatbelt has no per-binary filter: every process may listen.
        if (in.family == BackendFamily::seatbelt) return &rule;
        std::error_code error;
        if (!in.program.empty() && fs::weakly_canonical(in.program, error) == fs::weakly_canonical(rule.value, error))
            return &rule;
    }
    return nullptr;
}

// The run's NET_PUBLISH_LOOPBACK rule for `port`, when the backend kept one
// (a backend that does not publish has it lowered away).
const PolicyRule* publish_rule(const Policy& policy, long port) {
    for (const PolicyRule& rule : policy.rules)
        if (rule.kind == OMS_RULE_NET_PUBLISH_LOOPBACK && rule.number == port) return &rule;
    return nullptr;
}

// A listener on the command's own loopback: only the command's, or also the
// host's way in when the run publishes the port.
Decision own_loopback_listen(const Policy& policy, long port, const char* why, const char* only_inside) {
    if (const PolicyRule* published = publish_rule(policy, port)) {
        Decision d = decided(Verdict::allowed, published, why);
        const std::string p = std::to_string(port);
        d.notes.push_back("published: the host's 127.0.0.1:" + p + " (and [::1]:" + p +
                          ") reaches a server listening here while a run lives");
        return d;
    }
    Decision d = decided(Verdict::allowed, nullptr, why);
    d.notes.push_back(only_inside);
    return d;
}

Decision decide_listen(const Policy& policy, const SemanticsInputs& in, const Endpoint& e) {
    if (in.family == BackendFamily::unconfined) return decided(Verdict::allowed, nullptr, "no sandbox");
    if (!is_loopback(e.host)) return decided(Verdict::denied, nullptr, "no rule kind allows listening beyond loopback");
    if (const PolicyRule* rule = listen_rule(policy, in, e.port))
        return decided(Verdict::allowed, rule, "the trusted listener on the host's loopback");
    if (in.family == BackendFamily::docker) {
        if (const PolicyRule* relayed = connect_rule(policy, e.port))
            return decided(Verdict::denied, relayed, "the port is the relay's (the runner holds it): in use");
        return own_loopback_listen(policy, e.port, "the container's own loopback",
                                   "reachable from inside the container only");
    }
    if (in.family == BackendFamily::landlock && !shares_host_network(policy, in)) {
        if (const PolicyRule* relayed = connect_rule(policy, e.port))
            return decided(Verdict::denied, relayed, "the port is the relay's (it reaches the host's service): in use");
        return own_loopback_listen(policy, e.port, "the task's own loopback (a network namespace its runs share)",
                                   "reachable from the task's runs only");
    }
    if (in.family == BackendFamily::landlock)
        return decided(Verdict::denied, nullptr, "a trusted listener shares the host's network: only its ports");
    return decided(Verdict::denied, nullptr, "only the trusted listener binary may listen, on its ports");
}

Decision decide_env(const Policy& policy, const std::string& name) {
    const bool passes = std::any_of(policy.env.begin(), policy.env.end(), [&](const std::string& entry) {
        return entry.compare(0, name.size() + 1, name + "=") == 0;
    });
    const PolicyRule* rule = nullptr;
    for (const PolicyRule& r : policy.rules)
        if (r.kind == OMS_RULE_ENV_PASS && r.value == name) rule = &r;
    if (rule && is_account_name_variable(name))
        return passes ? decided(Verdict::allowed, rule, "set by oms to the uid's user name, never the caller's value")
                      : decided(Verdict::denied, rule, "the uid has no password entry: left unset");
    // environment.cpp gives these two the run's own folders whatever the caller had.
    if (rule && passes && (name == "HOME" || name == "TMPDIR"))
        return decided(Verdict::allowed, rule, "set by oms to the run's private folder, never the caller's value");
    if (passes) return decided(Verdict::allowed, rule, rule ? "passed by name" : "set by oms for the run");
    return decided(Verdict::denied, rule, rule ? "allowed by name but not set in the caller's environment"
                                             : "not on the allow-list: removed");
}

}  // namespace

Decision decide(const Policy& policy, const SemanticsInputs& inputs, Access access, const std::string& target) {
    // The environment is the core's own work; the rest is the backend's, and
    // one without a model cannot be predicted (never "no sandbox").
    if (inputs.family == BackendFamily::unknown && access != Access::env)
        return decided(Verdict::unknown, nullptr, "the backend declares no explain model (" OMS_EXTENSION_EXPLAIN_MODEL ")");
    switch (access) {
    case Access::read:
    case Access::exec: return decide_read(policy, inputs, target);
    case Access::write: return decide_write(policy, inputs, target);
    case Access::env: return decide_env(policy, target);
    case Access::connect:
    case Access::listen: {
        auto endpoint = parse_endpoint(target);
        if (!endpoint) return decided(Verdict::denied, nullptr, "not a PORT or HOST:PORT");
        return access == Access::connect ? decide_connect(policy, inputs, *endpoint)
                                         : decide_listen(policy, inputs, *endpoint);
    }
    }
    return decided(Verdict::denied, nullptr, "unknown access");
}

BackendFamily family_of_model(uint32_t model) {
    switch (model) {
    case OMS_EXPLAIN_MODEL_LANDLOCK: return BackendFamily::landlock;
    case OMS_EXPLAIN_MODEL_SEATBELT: return BackendFamily::seatbelt;
    case OMS_EXPLAIN_MODEL_CONTAINER: return BackendFamily::docker;
    default: return BackendFamily::unknown;
    }
}

std::optional<Access> access_from_name(const std::string& name) {
    static const std::map<std::string, Access> names{{"read", Access::read},       {"write", Access::write},
                                                     {"exec", Access::exec},       {"connect", Access::connect},
                                                     {"listen", Access::listen},   {"env", Access::env}};
    auto found = names.find(name);
    if (found == names.end()) return std::nullopt;
    return found->second;
}

const char* access_name(Access access) {
    switch (access) {
    case Access::read: return "read";
    case Access::write: return "write";
    case Access::exec: return "exec";
    case Access::connect: return "connect";
    case Access::listen: return "listen";
    case Access::env: return "env";
    }
    return "?";
}

const char* verdict_name(Verdict verdict) {
    switch (verdict) {
    case Verdict::allowed: return "allowed";
    case Verdict::denied: return "denied";
    case Verdict::hidden: return "hidden";
    case Verdict::unknown: return "unknown";
    }
    return "?";
}

}  // namespace oms::core
