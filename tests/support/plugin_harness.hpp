// Drive a plugin's C ABI from a test without the oms binary: a fake host that
// serves config from maps, builders for run contexts and policies, and
// collectors for rules and report lines. Everything the ABI borrows is owned
// here, so pointers stay valid while the builder lives.
#pragma once
#include <oms/sdk.h>

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace oms::test {

class FakeHost {
public:
    FakeHost();
    std::map<std::string, std::string> strings;
    std::map<std::string, int64_t> integers;
    std::map<std::string, bool> booleans;
    std::map<std::string, std::vector<std::string>> string_arrays;
    std::map<std::string, std::vector<int64_t>> integer_arrays;
    std::vector<std::pair<oms_log_level, std::string>> logs;
    const oms_host_api* api() const { return &api_; }

private:
    oms_host_api api_{};
    std::map<std::string, std::vector<const char*>> array_views_;
    friend struct FakeHostServices;
};

class ContextBuilder {
public:
    std::string platform = "linux";
    std::string home, worktree, private_home, temp_dir, state_dir, surfpool;
    std::vector<std::string> parent_env, read_only, read_write, pinned, argv;
    uint32_t flags = 0;
    std::string working_dir;  // empty: NULL (the worktree)
    // Rebuilt on every call; valid until the next call or the builder's death.
    const oms_run_context* build();

private:
    oms_run_context raw_{};
    std::vector<const char*> env_, ro_, rw_, pinned_, argv_;
};

struct OwnedRule {
    oms_rule_kind kind;
    std::string value;
    int64_t number = 0;
    std::string origin;
    bool operator==(const OwnedRule& o) const { return kind == o.kind && value == o.value && number == o.number; }
};

// A policy sink that keeps copies of every rule added.
class RuleCollector {
public:
    RuleCollector();
    std::vector<OwnedRule> rules;
    const oms_policy_sink* sink() const { return &sink_; }
    // Values of the rules of one kind, in order.
    std::vector<std::string> values(oms_rule_kind kind) const;
    std::vector<int64_t> numbers(oms_rule_kind kind) const;

private:
    oms_policy_sink sink_{};
};

// Builds an oms_policy from owned rules and environment entries.
class PolicyBuilder {
public:
    std::vector<OwnedRule> rules;
    std::vector<std::string> env;  // "NAME=value"
    PolicyBuilder& add(oms_rule_kind kind, std::string value, int64_t number = 0);
    const oms_policy* build();

private:
    oms_policy raw_{};
    std::vector<oms_rule> views_;
    std::vector<const char*> env_;
};

// A report sink that keeps every line, by kind.
class ReportCollector {
public:
    // `audience`: who the plugin is told reads the report (ABI 1.6).
    explicit ReportCollector(oms_report_audience audience = OMS_REPORT_FOR_PERSON);
    std::vector<std::pair<oms_report_kind, std::string>> lines;
    std::vector<std::string> of(oms_report_kind kind) const;
    std::string text() const;  // every TEXT line joined with '\n'
    const oms_report_sink* sink() const { return &sink_; }

private:
    oms_report_sink sink_{};
};

// An oms_error with its own buffer.
struct ErrorBuffer {
    char buffer[4096] = {0};
    oms_error error{buffer, sizeof buffer};
    oms_error* get() { return &error; }
    std::string message() const { return buffer; }
};

}  // namespace oms::test
