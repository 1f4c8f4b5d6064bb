// A small evaluator for the subset of Apple's Sandbox Profile Language (SBPL)
// that the seatbelt backend renders, so its profiles can be tested by what
// they decide, not only by how they read. Written from the documented
// semantics:
//   - a profile opens with (version 1); (allow default) / (deny default) sets
//     the decision when no rule matches;
//   - (allow|deny OPERATION... FILTER...) matches when one of its operations
//     covers the query's operation ("file-read*" covers "file-read-data") and
//     one of its filters matches (no filter: every target); the LAST matching
//     rule wins;
//   - path filters: literal (the exact path), subpath (the path and
//     everything below it, whole components), prefix (string prefix), regex
//     (POSIX extended, unanchored search); values may be (param "NAME");
//   - require-any / require-all / require-not combine filters;
//   - network: (remote ip "HOST:PORT") matches the peer of network-outbound,
//     (local ip "HOST:PORT") the bound address of network-bind and
//     network-inbound; HOST is "localhost" (any loopback address) or "*",
//     PORT a number or "*". A local-ip filter also matches network-outbound
//     from a socket that was never bound, which is how Seatbelt is known to
//     behave, so a mistaken outbound rule shows up as open egress here too;
//   - mach-lookup: (global-name "NAME") is an exact service name.
// Anything outside that subset (unknown operation or filter, a missing
// parameter, a relative path, unbalanced parentheses, a bad string or
// regex) is a parse error: a profile the evaluator cannot read fails the test.
#pragma once
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace oms::test::sbpl {

struct ParseError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

enum class Decision { allow, deny };

// One question: an operation ("file-read-data", "network-outbound",
// "mach-lookup", ...) on a target (a path, "HOST:PORT", a service name, or
// empty for operations without one).
struct Query {
    std::string operation;
    std::string target;
};

class Filter;

class Evaluator {
public:
    // Throws ParseError for anything it cannot read exactly.
    Evaluator(const std::string& profile_text, const std::map<std::string, std::string>& parameters);
    ~Evaluator();
    Evaluator(Evaluator&&) noexcept;

    Decision decide(const Query& query) const;
    size_t rule_count() const { return rules_.size(); }

private:
    struct Rule {
        Decision decision;
        std::vector<std::string> operations;
        std::vector<std::shared_ptr<const Filter>> filters;
    };
    Decision default_decision_ = Decision::deny;
    std::vector<Rule> rules_;
    friend class ProfileReader;
};

const char* to_string(Decision decision);

}  // namespace oms::test::sbpl
