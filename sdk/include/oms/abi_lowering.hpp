// oms/abi_lowering.hpp: how a host hands a policy to a backend that does not
// declare every kind in it. Each rule of an undeclared kind is rewritten
// into kinds the backend declares, never into something weaker (the
// lowerings are the rows of oms/abi_history.hpp), or the run is refused
// naming the backend and the kind. The oms host and the conformance kit
// (oms-backend-check) both lower through this file, so the kit checks a
// backend with exactly the rules oms would give it. Header-only, C++17.
#ifndef OMS_ABI_LOWERING_HPP
#define OMS_ABI_LOWERING_HPP

#include <oms/abi_history.hpp>
#include <oms/path.hpp>

#include <filesystem>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace oms::abi {

// Why a policy could not be handed to a backend. Nothing may run then.
struct LoweringRefused : std::runtime_error {
    enum class Cause { undeclared_kind, unsearchable_worktree };
    LoweringRefused(Cause why, const std::string& message) : std::runtime_error(message), cause(why) {}
    Cause cause;
};

namespace lowering_detail {

namespace fs = std::filesystem;

inline std::string kind_text(oms_rule_kind kind) {
    const char* name = rule_kind_constant(kind);
    return std::string(name ? name : "an unknown kind") + " (" + std::to_string(kind) + ")";
}

// Every entry called `name` below `root`, links not followed, the inside of
// a match not searched (the deny covers it). Any error refuses the run: a
// folder left out could hold a writable nested .git.
inline std::vector<std::string> find_named(const std::string& root, const std::string& name) {
    std::vector<std::string> found;
    std::error_code error;
    fs::recursive_directory_iterator walk(root, fs::directory_options::none, error);
    for (; !error && walk != fs::recursive_directory_iterator(); walk.increment(error)) {
        if (walk->path().filename() != name) continue;
        found.push_back(walk->path().string());
        if (walk->is_directory(error) && !walk->is_symlink(error)) walk.disable_recursion_pending();
    }
    if (error)
        throw LoweringRefused(LoweringRefused::Cause::unsearchable_worktree,
                              "refusing to run: cannot search the worktree " + root + " for '" + name +
                                  "' entries to protect (" + error.message() +
                                  "); make every folder in it readable. Nothing ran.");
    return found;
}

template <class Rule>
bool in_write_root(const std::vector<Rule>& rules, const std::string& path) {
    for (const Rule& rule : rules)
        if (rule.kind == OMS_RULE_WRITE_ALLOW_TREE && sdk::path::is_inside(path, rule.value)) return true;
    return false;
}

// A rule's value as a line shows it: its number, or its text.
template <class Rule>
std::string value_text(const Rule& rule) {
    return rule.value.empty() ? std::to_string(rule.number) : rule.value;
}

// `line` with {value} and {backend} filled in (Addition::dropped_line).
template <class Rule>
std::string dropped_line(const char* line, const Rule& rule, const std::string& backend) {
    std::string text = line;
    const std::string value = value_text(rule);
    for (const auto& [field, with] : {std::pair<std::string, std::string>{"{value}", value}, {"{backend}", backend}})
        for (size_t at = text.find(field); at != std::string::npos; at = text.find(field, at + with.size()))
            text.replace(at, field.size(), with);
    return text;
}

template <class Rule>
[[noreturn]] void refuse(const std::string& backend, const Rule& rule, const Addition* addition) {
    std::string message = "refusing to run: the backend '" + backend + "' does not declare the rule kind " +
                          kind_text(rule.kind) + " ('" + rule.value + "', from " + rule.origin + ")";
    if (addition && addition->lowered_into)
        message += ", nor " + kind_text(addition->lowered_into) + ", into which oms would rewrite it";
    else
        message += ", and no kind it declares expresses it";
    throw LoweringRefused(LoweringRefused::Cause::undeclared_kind, message + ". Nothing ran.");
}

}  // namespace lowering_detail

// Rewrites `rules` so that each one's kind is in `declared` (OMS_RULE_BIT
// bits), for the backend `backend` whose commands start in `worktree`.
// Returns one line per rewritten rule (what became of it). A rule of a kind
// that is dropped when undeclared (Addition::dropped_line) also gets, in
// `dropped` when given, the line the user is told. Throws LoweringRefused
// when a rule cannot be rewritten; `rules` is then unchanged.
// `Rule` has the members kind, value, number and origin, in that order.
template <class Rule>
std::vector<std::string> lower_rules(std::vector<Rule>& rules, uint64_t declared, const std::string& worktree,
                                     const std::string& backend, std::vector<std::string>* dropped = nullptr) {
    using namespace lowering_detail;
    std::vector<Rule> lowered;
    std::vector<std::string> notes;
    for (const Rule& rule : rules) {
        if (has_kind(declared, rule.kind)) {
            lowered.push_back(rule);
            continue;
        }
        const Addition* addition = addition_of_rule_kind(rule.kind);
        if (addition && addition->dropped_line) {
            const std::string line = dropped_line(addition->dropped_line, rule, backend);
            notes.push_back(kind_text(rule.kind) + " " + value_text(rule) + " -> dropped (" + line + ")");
            if (dropped) dropped->push_back(line);
            continue;
        }
        if (!addition || !addition->lowered_into || !has_kind(declared, addition->lowered_into))
            refuse(backend, rule, addition);
        const std::string from = kind_text(rule.kind) + " '" + rule.value + "'";
        if (rule.kind == OMS_RULE_WRITE_DENY_NAME) {
            const auto found = find_named(worktree, rule.value);
            for (const std::string& path : found)
                lowered.push_back(Rule{OMS_RULE_WRITE_DENY, path, 0, rule.origin + " (found now)"});
            notes.push_back(from + " -> " + std::to_string(found.size()) + " WRITE_DENY path(s) found now below " +
                            worktree);
        } else if (rule.kind == OMS_RULE_WRITE_SCRATCH_TREE) {
            const bool writable = in_write_root(rules, rule.value);
            if (writable) lowered.push_back(Rule{OMS_RULE_WRITE_DENY, rule.value, 0, rule.origin + " (no per-run layer)"});
            notes.push_back(from + (writable ? " -> WRITE_DENY of the path (no per-run layer)"
                                             : " -> dropped (in no write root: already read-only)"));
        } else if (rule.kind == OMS_RULE_NET_CONNECT_RUN_PORT) {
            // The same port, only not known to be the run's alone: a backend
            // that shares a sandbox among runs then opens it for that sandbox.
            lowered.push_back(Rule{OMS_RULE_NET_CONNECT_LOOPBACK, rule.value, rule.number, rule.origin});
            notes.push_back(kind_text(rule.kind) + " " + std::to_string(rule.number) + " -> NET_CONNECT_LOOPBACK " +
                            std::to_string(rule.number));
        } else {
            refuse(backend, rule, nullptr);  // a row with a lowering this host does not implement
        }
    }
    rules = std::move(lowered);
    return notes;
}

}  // namespace oms::abi

#endif  // OMS_ABI_LOWERING_HPP
