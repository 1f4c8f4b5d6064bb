#include "plugin_harness.hpp"

namespace oms::test {

struct FakeHostServices {
    static FakeHost& self(void* data) { return *static_cast<FakeHost*>(data); }
    static void log(void* data, oms_log_level level, const char* message) {
        self(data).logs.emplace_back(level, message);
    }
    static oms_status string(void* data, const char* key, const char** out) {
        auto& map = self(data).strings;
        auto it = map.find(key);
        if (it == map.end()) return OMS_ERR_INVALID;
        *out = it->second.c_str();
        return OMS_OK;
    }
    static oms_status integer(void* data, const char* key, int64_t* out) {
        auto& map = self(data).integers;
        auto it = map.find(key);
        if (it == map.end()) return OMS_ERR_INVALID;
        *out = it->second;
        return OMS_OK;
    }
    static oms_status boolean(void* data, const char* key, int32_t* out) {
        auto& map = self(data).booleans;
        auto it = map.find(key);
        if (it == map.end()) return OMS_ERR_INVALID;
        *out = it->second ? 1 : 0;
        return OMS_OK;
    }
    static oms_status strings(void* data, const char* key, oms_strings* out) {
        FakeHost& host = self(data);
        auto it = host.string_arrays.find(key);
        if (it == host.string_arrays.end()) return OMS_ERR_INVALID;
        auto& views = host.array_views_[key];
        views.clear();
        for (auto& s : it->second) views.push_back(s.c_str());
        *out = oms_strings{views.data(), views.size()};
        return OMS_OK;
    }
    static oms_status integers(void* data, const char* key, const int64_t** out, size_t* count) {
        auto& map = self(data).integer_arrays;
        auto it = map.find(key);
        if (it == map.end()) return OMS_ERR_INVALID;
        *out = it->second.data();
        *count = it->second.size();
        return OMS_OK;
    }
};

FakeHost::FakeHost() {
    api_.struct_size = sizeof(oms_host_api);
    api_.abi_major = OMS_ABI_MAJOR;
    api_.abi_minor = OMS_ABI_MINOR;
    api_.host_data = this;
    api_.log = &FakeHostServices::log;
    api_.config_string = &FakeHostServices::string;
    api_.config_integer = &FakeHostServices::integer;
    api_.config_boolean = &FakeHostServices::boolean;
    api_.config_strings = &FakeHostServices::strings;
    api_.config_integers = &FakeHostServices::integers;
}

static oms_strings view_of(const std::vector<std::string>& owned, std::vector<const char*>& views) {
    views.clear();
    for (auto& s : owned) views.push_back(s.c_str());
    return oms_strings{views.empty() ? nullptr : views.data(), views.size()};
}

static const char* c_or_null(const std::string& s) { return s.empty() ? nullptr : s.c_str(); }

const oms_run_context* ContextBuilder::build() {
    raw_ = oms_run_context{};
    raw_.struct_size = sizeof(oms_run_context);
    raw_.platform = platform.c_str();
    raw_.home = home.c_str();
    raw_.worktree = worktree.c_str();
    raw_.private_home = private_home.c_str();
    raw_.temp_dir = temp_dir.c_str();
    raw_.state_dir = state_dir.c_str();
    raw_.parent_env = view_of(parent_env, env_);
    raw_.read_only = view_of(read_only, ro_);
    raw_.read_write = view_of(read_write, rw_);
    raw_.pinned = view_of(pinned, pinned_);
    raw_.surfpool = c_or_null(surfpool);
    raw_.argv = view_of(argv, argv_);
    raw_.flags = flags;
    raw_.working_dir = c_or_null(working_dir);
    return &raw_;
}

static oms_status collect_rule(void* data, const oms_rule* rule) {
    auto& rules = static_cast<RuleCollector*>(data)->rules;
    if (rule->kind < OMS_RULE_READ_DENY_TREE || rule->kind > OMS_RULE_KIND_LAST) return OMS_ERR_INVALID;
    rules.push_back(OwnedRule{rule->kind, std::string(rule->value.data, rule->value.size), rule->number,
                              std::string(rule->origin.data, rule->origin.size)});
    return OMS_OK;
}

RuleCollector::RuleCollector() { sink_ = oms_policy_sink{sizeof(oms_policy_sink), this, &collect_rule}; }

std::vector<std::string> RuleCollector::values(oms_rule_kind kind) const {
    std::vector<std::string> out;
    for (auto& r : rules)
        if (r.kind == kind) out.push_back(r.value);
    return out;
}

std::vector<int64_t> RuleCollector::numbers(oms_rule_kind kind) const {
    std::vector<int64_t> out;
    for (auto& r : rules)
        if (r.kind == kind) out.push_back(r.number);
    return out;
}

PolicyBuilder& PolicyBuilder::add(oms_rule_kind kind, std::string value, int64_t number) {
    rules.push_back(OwnedRule{kind, std::move(value), number, "test"});
    return *this;
}

const oms_policy* PolicyBuilder::build() {
    views_.clear();
    for (auto& r : rules)
        views_.push_back(oms_rule{sizeof(oms_rule), r.kind, {r.value.data(), r.value.size()}, r.number,
                                  {r.origin.data(), r.origin.size()}});
    raw_ = oms_policy{sizeof(oms_policy), views_.data(), views_.size(), view_of(env, env_)};
    return &raw_;
}

static void collect_line(void* data, oms_report_kind kind, oms_str text) {
    static_cast<ReportCollector*>(data)->lines.emplace_back(kind, std::string(text.data, text.size));
}

ReportCollector::ReportCollector(oms_report_audience audience) {
    sink_ = oms_report_sink{sizeof(oms_report_sink), this, &collect_line, audience};
}

std::vector<std::string> ReportCollector::of(oms_report_kind kind) const {
    std::vector<std::string> out;
    for (auto& [k, line] : lines)
        if (k == kind) out.push_back(line);
    return out;
}

std::string ReportCollector::text() const {
    std::string out;
    for (auto& line : of(OMS_REPORT_TEXT)) out += line + "\n";
    return out;
}

}  // namespace oms::test
