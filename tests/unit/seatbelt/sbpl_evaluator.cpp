#include "sbpl_evaluator.hpp"

#include "sbpl_filters.hpp"
#include "sexpr_reader.hpp"

#include <algorithm>
#include <set>

namespace oms::test::sbpl {

namespace {

// Operations a rule may name. Names ending in '*' cover every operation that
// starts with what precedes the '*'.
const std::set<std::string>& known_operations() {
    static const std::set<std::string> names{
        "default", "file*", "file-read*", "file-read-data", "file-read-metadata", "file-read-xattr",
        "file-write*", "file-write-data", "file-write-create", "file-write-unlink", "file-write-flags",
        "file-write-mode", "file-write-owner", "file-write-times", "file-write-xattr", "file-ioctl",
        "network*", "network-outbound", "network-inbound", "network-bind", "mach*", "mach-lookup",
        "mach-register", "appleevent-send", "lsopen", "process*", "process-exec", "process-fork",
        "signal", "sysctl*", "sysctl-read", "sysctl-write", "iokit-open", "ipc-posix-shm",
    };
    return names;
}

bool covers(const std::string& rule_operation, const std::string& operation) {
    if (rule_operation == operation) return true;
    if (rule_operation.empty() || rule_operation.back() != '*') return false;
    const std::string stem = rule_operation.substr(0, rule_operation.size() - 1);
    return operation.compare(0, stem.size(), stem) == 0;
}

[[noreturn]] void fail(const Node& node, const std::string& what) {
    throw ParseError(what + " at byte " + std::to_string(node.offset));
}

}  // namespace

// Turns top-level forms into the evaluator's rules.
class ProfileReader {
public:
    ProfileReader(Evaluator& target, const std::map<std::string, std::string>& parameters)
        : target_(target), parameters_(parameters) {}

    void read(const std::vector<Node>& forms) {
        if (forms.empty()) throw ParseError("empty profile");
        check_version(forms[0]);
        for (size_t i = 1; i < forms.size(); ++i) rule(forms[i]);
    }

private:
    void check_version(const Node& form) {
        const bool ok = form.type == Node::Type::list && form.items.size() == 2 && form.items[0].is_symbol("version") &&
                        form.items[1].is_symbol("1");
        if (!ok) fail(form, "a profile must start with (version 1)");
    }

    void rule(const Node& form) {
        if (form.type != Node::Type::list || form.items.empty()) fail(form, "expected (allow ...) or (deny ...)");
        const Node& head = form.items[0];
        if (!head.is_symbol("allow") && !head.is_symbol("deny")) fail(form, "unknown form \"" + head.text + "\"");
        Evaluator::Rule rule;
        rule.decision = head.is_symbol("allow") ? Decision::allow : Decision::deny;
        size_t i = 1;
        for (; i < form.items.size() && form.items[i].type == Node::Type::symbol; ++i) {
            if (!known_operations().count(form.items[i].text))
                fail(form.items[i], "unknown operation \"" + form.items[i].text + "\"");
            rule.operations.push_back(form.items[i].text);
        }
        if (rule.operations.empty()) fail(form, "a rule needs at least one operation");
        for (; i < form.items.size(); ++i) rule.filters.push_back(make_filter(form.items[i], parameters_));
        add(form, std::move(rule));
    }

    void add(const Node& form, Evaluator::Rule rule) {
        const bool is_default = std::find(rule.operations.begin(), rule.operations.end(), "default") != rule.operations.end();
        if (!is_default) {
            target_.rules_.push_back(std::move(rule));
            return;
        }
        if (rule.operations.size() != 1 || !rule.filters.empty()) fail(form, "default takes no other operation or filter");
        target_.default_decision_ = rule.decision;
    }

    Evaluator& target_;
    const std::map<std::string, std::string>& parameters_;
};

Evaluator::Evaluator(const std::string& profile_text, const std::map<std::string, std::string>& parameters) {
    ProfileReader(*this, parameters).read(read_forms(profile_text));
}

Evaluator::~Evaluator() = default;
Evaluator::Evaluator(Evaluator&&) noexcept = default;

Decision Evaluator::decide(const Query& query) const {
    if (!known_operations().count(query.operation) || query.operation.back() == '*' || query.operation == "default")
        throw std::invalid_argument("not a concrete operation: " + query.operation);
    Decision decision = default_decision_;
    for (const Rule& rule : rules_) {
        const bool operation_hit = std::any_of(rule.operations.begin(), rule.operations.end(),
                                               [&](const std::string& op) { return covers(op, query.operation); });
        if (!operation_hit) continue;
        const bool filter_hit = rule.filters.empty() ||
                                std::any_of(rule.filters.begin(), rule.filters.end(),
                                            [&](const auto& filter) { return filter->matches(query); });
        if (filter_hit) decision = rule.decision;
    }
    return decision;
}

const char* to_string(Decision decision) { return decision == Decision::allow ? "allow" : "deny"; }

}  // namespace oms::test::sbpl
