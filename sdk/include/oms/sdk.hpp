// oms/sdk.hpp: header-only C++17 helpers for plugin authors, on top of the
// plain-C ABI in oms/sdk.h. Needs only the standard library.
//
// A plugin derives from oms::sdk::PolicyPlugin or oms::sdk::BackendPlugin and
// exports itself with OMS_EXPORT_POLICY_PLUGIN / OMS_EXPORT_BACKEND_PLUGIN.
// Every call from the host goes through a noexcept trampoline that turns a
// thrown exception into an oms_status and a message, so no exception ever
// crosses the C boundary.
//
// The ABI minor a plugin TARGETS is not the header's: define
//     #define OMS_TARGET_ABI_MINOR 2
// before including this file in the file that exports the plugin to use
// what 1.2 added. Without it the plugin targets 1.0: it loads on every 1.x
// host, and a backend handles the rule kinds 1.0 defines (1 to 10), so the
// host rewrites every later kind into those (never weaker) or refuses the
// run. A source written for 1.0 keeps 1.0's meaning when it is rebuilt
// against a newer SDK. A backend may declare what it handles itself:
//     static constexpr uint64_t rule_kinds = OMS_RULE_BIT(OMS_RULE_READ_DENY_TREE) | ...;
// (only kinds its target minor defines; checked when it compiles).
#ifndef OMS_SDK_HPP
#define OMS_SDK_HPP

#include <oms/abi_history.hpp>
#include <oms/path.hpp>
#include <oms/sdk.h>

#include <cstddef>
#include <cstring>
#include <exception>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#ifndef OMS_TARGET_ABI_MINOR
#define OMS_TARGET_ABI_MINOR 0
#endif
static_assert(OMS_TARGET_ABI_MINOR <= OMS_ABI_MINOR, "OMS_TARGET_ABI_MINOR is newer than this SDK's header");

namespace oms::sdk {

// Throw this to fail with a specific status; any other exception maps to
// OMS_ERR_INTERNAL.
class Error : public std::runtime_error {
public:
    Error(oms_status status, const std::string& message)
        : std::runtime_error(message), status_(status) {}
    oms_status status() const noexcept { return status_; }

private:
    oms_status status_;
};

inline void write_error(oms_error* error, std::string_view message) noexcept {
    if (error == nullptr || error->buffer == nullptr || error->capacity == 0) return;
    const size_t n = message.size() < error->capacity - 1 ? message.size() : error->capacity - 1;
    std::memcpy(error->buffer, message.data(), n);
    error->buffer[n] = '\0';
}

// Runs `body` (returning void) and maps exceptions to a status + message.
template <class Body>
oms_status guarded(oms_error* error, Body&& body) noexcept {
    try {
        body();
        return OMS_OK;
    } catch (const Error& e) {
        write_error(error, e.what());
        return e.status();
    } catch (const std::exception& e) {
        write_error(error, e.what());
        return OMS_ERR_INTERNAL;
    } catch (...) {
        write_error(error, "unknown exception inside the plugin");
        return OMS_ERR_INTERNAL;
    }
}

// The name of a rule kind as its constant spells it ("READ_DENY_TREE"), or
// nullptr for a kind this SDK does not know.
inline const char* rule_kind_name(oms_rule_kind kind) { return abi::rule_kind_constant(kind); }

inline std::string_view view(oms_str s) { return s.size ? std::string_view(s.data, s.size) : std::string_view(); }
inline oms_str str(std::string_view s) { return oms_str{s.data(), s.size()}; }
inline std::vector<std::string_view> list(oms_strings s) {
    std::vector<std::string_view> out;
    for (size_t i = 0; i < s.count; ++i) out.emplace_back(s.items[i]);
    return out;
}

// The host's services, with C++ types.
class Host {
public:
    explicit Host(const oms_host_api* api) : api_(api) {}
    void log(oms_log_level level, const std::string& message) const {
        if (api_ && api_->log) api_->log(api_->host_data, level, message.c_str());
    }
    std::optional<std::string> string(const char* key) const {
        const char* out = nullptr;
        if (api_->config_string(api_->host_data, key, &out) != OMS_OK || !out) return std::nullopt;
        return std::string(out);
    }
    std::optional<int64_t> integer(const char* key) const {
        int64_t out = 0;
        if (api_->config_integer(api_->host_data, key, &out) != OMS_OK) return std::nullopt;
        return out;
    }
    std::optional<bool> boolean(const char* key) const {
        int32_t out = 0;
        if (api_->config_boolean(api_->host_data, key, &out) != OMS_OK) return std::nullopt;
        return out != 0;
    }
    std::vector<std::string> strings(const char* key) const {
        oms_strings out{nullptr, 0};
        std::vector<std::string> result;
        if (api_->config_strings(api_->host_data, key, &out) != OMS_OK) return result;
        for (auto item : list(out)) result.emplace_back(item);
        return result;
    }
    std::optional<std::vector<int64_t>> integers(const char* key) const {
        const int64_t* items = nullptr;
        size_t count = 0;
        if (api_->config_integers(api_->host_data, key, &items, &count) != OMS_OK) return std::nullopt;
        return std::vector<int64_t>(items, items + count);
    }

private:
    const oms_host_api* api_;
};

// Read-only view of the run context.
class Context {
public:
    explicit Context(const oms_run_context* raw) : raw_(raw) {}
    const oms_run_context& raw() const { return *raw_; }
    std::string_view platform() const { return raw_->platform ? raw_->platform : ""; }
    std::string_view home() const { return raw_->home ? raw_->home : ""; }
    std::string_view worktree() const { return raw_->worktree ? raw_->worktree : ""; }
    // Where the command starts: the worktree or a folder below it. A 1.0
    // host's context ends before the field, and NULL means the worktree too.
    std::string_view working_dir() const {
        const bool present = raw_->struct_size >= offsetof(oms_run_context, working_dir) + sizeof(raw_->working_dir);
        return present && raw_->working_dir && *raw_->working_dir ? std::string_view(raw_->working_dir) : worktree();
    }
    // The file to append the run's refusals to (oms/refusal_log.hpp), or
    // empty: a host before 1.3, or none given.
    std::string_view refusal_log() const {
        const bool present = raw_->struct_size >= offsetof(oms_run_context, refusal_log) + sizeof(raw_->refusal_log);
        return present && raw_->refusal_log ? std::string_view(raw_->refusal_log) : std::string_view();
    }
    std::string_view private_home() const { return raw_->private_home ? raw_->private_home : ""; }
    std::string_view temp_dir() const { return raw_->temp_dir ? raw_->temp_dir : ""; }
    std::string_view state_dir() const { return raw_->state_dir ? raw_->state_dir : ""; }
    std::optional<std::string_view> surfpool() const {
        if (!raw_->surfpool || !*raw_->surfpool) return std::nullopt;
        return std::string_view(raw_->surfpool);
    }
    std::vector<std::string_view> argv() const { return list(raw_->argv); }
    std::vector<std::string_view> read_only() const { return list(raw_->read_only); }
    std::vector<std::string_view> read_write() const { return list(raw_->read_write); }
    std::vector<std::string_view> pinned() const { return list(raw_->pinned); }
    bool best_effort() const { return (raw_->flags & OMS_RUN_BEST_EFFORT) != 0; }
    // Value of a variable in the caller's environment.
    std::optional<std::string_view> env(std::string_view name) const {
        for (auto entry : list(raw_->parent_env)) {
            if (entry.size() > name.size() && entry.compare(0, name.size(), name) == 0 &&
                entry[name.size()] == '=')
                return entry.substr(name.size() + 1);
        }
        return std::nullopt;
    }

private:
    const oms_run_context* raw_;
};

// The folder a backend starts the command in: context.working_dir(), checked
// to be the worktree or a plain path below it (absolute, no "." or ".."
// component). Throws Error(OMS_ERR_INVALID) otherwise: a backend never
// starts a command outside the worktree it was given.
inline std::string checked_working_dir(const Context& context) {
    const std::string dir(context.working_dir()), worktree(context.worktree());
    const bool plain = path::is_absolute(dir) && path::is_normal(dir);
    if (!plain || !path::is_inside(dir, worktree))
        throw Error(OMS_ERR_INVALID, "the working folder '" + dir + "' is not inside the worktree '" + worktree +
                                         "'; nothing ran");
    return dir;
}

// One rule of an assembled policy, as C++ views (borrowed from the call).
struct Rule {
    oms_rule_kind kind;
    std::string_view value;
    int64_t number;
    std::string_view origin;
};

class Policy {
public:
    explicit Policy(const oms_policy* raw) : raw_(raw) {}
    std::vector<Rule> rules() const {
        std::vector<Rule> out;
        if (raw_->rule_count == 0) return out;
        // The writer's element size is the stride (see SIZES in sdk.h).
        const size_t stride = raw_->rules[0].struct_size;
        if (stride < abi::kRuleSize_1_0) throw Error(OMS_ERR_INVALID, "policy rules are smaller than ABI 1.0's");
        const char* base = reinterpret_cast<const char*>(raw_->rules);
        for (size_t i = 0; i < raw_->rule_count; ++i) {
            const oms_rule& r = *reinterpret_cast<const oms_rule*>(base + i * stride);
            out.push_back(Rule{r.kind, view(r.value), r.number, view(r.origin)});
        }
        return out;
    }
    std::vector<Rule> rules(oms_rule_kind kind) const {
        std::vector<Rule> out;
        for (const Rule& r : rules())
            if (r.kind == kind) out.push_back(r);
        return out;
    }
    std::vector<std::string_view> env() const { return list(raw_->env); }
    const oms_policy* raw() const { return raw_; }

private:
    const oms_policy* raw_;
};

// Where a policy plugin adds rules.
class RuleSink {
public:
    explicit RuleSink(const oms_policy_sink* raw) : raw_(raw) {}
    void add(oms_rule_kind kind, std::string_view value, std::string_view origin, int64_t number = 0) const {
        oms_rule rule{sizeof(oms_rule), kind, str(value), number, str(origin)};
        if (raw_->add(raw_->host_data, &rule) != OMS_OK)
            throw Error(OMS_ERR_INVALID, "the host refused rule '" + std::string(value) + "'");
    }

private:
    const oms_policy_sink* raw_;
};

// Where a backend writes report lines.
class Report {
public:
    explicit Report(const oms_report_sink* raw) : raw_(raw) {}
    void emit(oms_report_kind kind, std::string_view text) const { raw_->emit(raw_->host_data, kind, str(text)); }
    void summary(std::string_view t) const { emit(OMS_REPORT_SUMMARY, t); }
    void settings(std::string_view t) const { emit(OMS_REPORT_SETTINGS, t); }
    void detail(std::string_view t) const { emit(OMS_REPORT_DETAIL, t); }
    void missing(std::string_view t) const { emit(OMS_REPORT_MISSING, t); }
    void warn_once(std::string_view t) const { emit(OMS_REPORT_WARN_ONCE, t); }
    void text(std::string_view t) const { emit(OMS_REPORT_TEXT, t); }
    // The host alone reads this report (ABI 1.6: before a run, for example):
    // DETAIL lines other than "guarantees:" go unread, so a fact that takes
    // time to find and only a person reads may be left out. False from a
    // host older than 1.6 (a person may read every line).
    bool host_only() const {
        const bool present = raw_->struct_size >= offsetof(oms_report_sink, audience) + sizeof(raw_->audience);
        return present && raw_->audience == OMS_REPORT_FOR_HOST;
    }

private:
    const oms_report_sink* raw_;
};

// ---------------------------------------------------------------- plugins

class PolicyPlugin {
public:
    explicit PolicyPlugin(Host host) : host_(host) {}
    virtual ~PolicyPlugin() = default;
    virtual void contribute(const Context& context, const RuleSink& sink) = 0;
    const Host& host() const { return host_; }

private:
    Host host_;
};

// One running command of a backend.
class Run {
public:
    virtual ~Run() = default;
    virtual void signal(int signal_number) = 0;
    // Blocks until the command ends; returns its exit code (128+N for signal N).
    // The destructor runs at release, after wait (or without it when the host
    // gives up): it must not leave the command running.
    virtual int wait() = 0;
};

class BackendPlugin {
public:
    explicit BackendPlugin(Host host) : host_(host) {}
    virtual ~BackendPlugin() = default;
    // Throw Error(OMS_ERR_UNAVAILABLE, reason) when it cannot run here.
    virtual void probe(const Report& report) = 0;
    virtual void render(const Context& context, const Policy& policy, const Report& report) = 0;
    virtual std::unique_ptr<Run> spawn(const Context& context, const Policy& policy, oms_stdio stdio) = 0;
    virtual void end_task(const Context&, const Report&) {}
    // oms.verify-plan/1's check: throw Error(OMS_ERR_UNSUPPORTED, line) when
    // this instance's configuration breaks the plan's network promise.
    virtual void check_verify() const {}
    const Host& host() const { return host_; }

private:
    Host host_;
};

// Compile-time facts a plugin class provides as static members:
//   static constexpr const char* id, * version, * summary;
//   static const oms_config_key* config_keys(); static size_t config_key_count();
//   backends also: static constexpr uint32_t flags, strength; static constexpr const char* platforms;
//   and optionally static constexpr uint64_t rule_kinds (OMS_RULE_BIT bits) and
//   uint32_t run_flags (OMS_RUN_* bits): the target minor's sets when absent;
//   static constexpr uint32_t explain_model (OMS_EXPLAIN_MODEL_*): the
//   model `oms explain` predicts this backend with, none when absent;
//   static constexpr uint32_t verify_network (OMS_VERIFY_NETWORK_*) and
//   const char* verify_network_text: the oms.verify-plan/1 extension (none
//   when absent), with optionally static constexpr const char*
//   verify_launcher[] (its path inside the sandbox, then its arguments; the
//   host's launcher when absent) and uint32_t verify_flags (OMS_VERIFY_*);
//   the plan's check calls the instance's check_verify().
//
// Hidden: a plugin built without -fvisibility=hidden must not export these
// templates' statics (as STB_GNU_UNIQUE objects they would be merged with
// another plugin's of the same class name, which then hands over the wrong
// descriptor).
#if defined(__GNUC__)
#pragma GCC visibility push(hidden)
#endif
namespace detail {

template <class P, class = void>
struct DeclaresRuleKinds : std::false_type {};
template <class P>
struct DeclaresRuleKinds<P, std::void_t<decltype(P::rule_kinds)>> : std::true_type {};
template <class P, class = void>
struct DeclaresExplainModel : std::false_type {};
template <class P>
struct DeclaresExplainModel<P, std::void_t<decltype(P::explain_model)>> : std::true_type {};
template <class P, class = void>
struct DeclaresVerifyPlan : std::false_type {};
template <class P>
struct DeclaresVerifyPlan<P, std::void_t<decltype(P::verify_network), decltype(P::verify_network_text)>>
    : std::true_type {};
template <class P, class = void>
struct DeclaresVerifyLauncher : std::false_type {};
template <class P>
struct DeclaresVerifyLauncher<P, std::void_t<decltype(P::verify_launcher)>> : std::true_type {};
template <class P, class = void>
struct DeclaresVerifyFlags : std::false_type {};
template <class P>
struct DeclaresVerifyFlags<P, std::void_t<decltype(P::verify_flags)>> : std::true_type {};
template <class P, class = void>
struct DeclaresRunFlags : std::false_type {};
template <class P>
struct DeclaresRunFlags<P, std::void_t<decltype(P::run_flags)>> : std::true_type {};

// What backend P handles, targeting minor `Target`.
template <class P, unsigned Target>
constexpr uint64_t rule_kinds_of() {
    if constexpr (DeclaresRuleKinds<P>::value) return P::rule_kinds;
    else return abi::rule_kinds_of_minor(Target);
}
template <class P, unsigned Target>
constexpr uint32_t run_flags_of() {
    if constexpr (DeclaresRunFlags<P>::value) return P::run_flags;
    else return abi::run_flags_of_minor(Target);
}

// The oms.verify-plan/1 a backend declares with static members.
template <class P>
oms_strings verify_launcher_of() {
    if constexpr (DeclaresVerifyLauncher<P>::value)
        return oms_strings{P::verify_launcher, sizeof P::verify_launcher / sizeof P::verify_launcher[0]};
    else return oms_strings{nullptr, 0};
}
template <class P>
constexpr uint32_t verify_flags_of() {
    if constexpr (DeclaresVerifyFlags<P>::value) {
        static_assert((P::verify_flags & ~OMS_VERIFY_FLAGS_1) == 0, "verify_flags holds a bit oms.verify-plan/1 lacks");
        return P::verify_flags;
    } else {
        return 0;
    }
}

template <class P, unsigned Target>
constexpr bool declaration_fits_target() {
    static_assert((rule_kinds_of<P, Target>() & ~abi::rule_kinds_of_minor(Target)) == 0,
                  "rule_kinds names a kind the target ABI minor does not define: raise OMS_TARGET_ABI_MINOR");
    static_assert((run_flags_of<P, Target>() & ~abi::run_flags_of_minor(Target)) == 0,
                  "run_flags names a bit the target ABI minor does not define: raise OMS_TARGET_ABI_MINOR");
    static_assert((P::flags & ~abi::backend_flags_of_minor(Target)) == 0,
                  "flags holds a bit the target ABI minor does not define: raise OMS_TARGET_ABI_MINOR");
    return true;
}

// Fails closed on what the backend did not declare: a rule of another kind
// (a host that did not lower it) or a run flag it does not understand never
// reaches the plugin's own code, where a `default:` branch would skip it.
inline void refuse_undeclared(const char* backend, uint64_t kinds, uint32_t run_flags, const oms_run_context* context,
                              const Policy& policy) {
    for (const Rule& rule : policy.rules())
        if (!abi::has_kind(kinds, rule.kind)) {
            const char* name = rule_kind_name(rule.kind);
            throw Error(OMS_ERR_UNSUPPORTED, std::string(backend) + ": the policy holds a rule of kind " +
                                                 (name ? name : "?") + " (" + std::to_string(rule.kind) + ") '" +
                                                 std::string(rule.value) +
                                                 "', which this backend does not declare; nothing ran");
        }
    if (context && (context->flags & ~run_flags))
        throw Error(OMS_ERR_UNSUPPORTED, std::string(backend) + ": the run has flags " +
                                             std::to_string(context->flags & ~run_flags) +
                                             " this backend does not understand; nothing ran");
}

template <class P>
struct Common {
    static oms_status create(const oms_host_api* host, void** out, oms_error* error) noexcept {
        return guarded(error, [&] { *out = new P(Host(host)); });
    }
    static void destroy(void* instance) noexcept { delete static_cast<P*>(instance); }
    static P& self(void* instance) { return *static_cast<P*>(instance); }
};

template <class P>
struct PolicyTrampolines : Common<P> {
    static oms_status contribute(void* instance, const oms_run_context* context,
                                 const oms_policy_sink* sink, oms_error* error) noexcept {
        return guarded(error, [&] { Common<P>::self(instance).contribute(Context(context), RuleSink(sink)); });
    }
    static const oms_policy_api* api() {
        static const oms_policy_api value{sizeof(oms_policy_api), &contribute};
        return &value;
    }
};

template <class P, unsigned Target>
struct BackendTrampolines : Common<P> {
    static_assert(declaration_fits_target<P, Target>());
    static constexpr uint64_t kinds = rule_kinds_of<P, Target>();
    static constexpr uint32_t run_flags = run_flags_of<P, Target>();

    static oms_status probe(void* instance, const oms_report_sink* report, oms_error* error) noexcept {
        return guarded(error, [&] { Common<P>::self(instance).probe(Report(report)); });
    }
    static oms_status render(void* instance, const oms_run_context* context, const oms_policy* policy,
                             const oms_report_sink* report, oms_error* error) noexcept {
        return guarded(error, [&] {
            refuse_undeclared(P::id, kinds, run_flags, context, Policy(policy));
            Common<P>::self(instance).render(Context(context), Policy(policy), Report(report));
        });
    }
    static oms_status spawn(void* instance, const oms_run_context* context, const oms_policy* policy,
                            oms_stdio stdio, void** out_run, oms_error* error) noexcept {
        return guarded(error, [&] {
            refuse_undeclared(P::id, kinds, run_flags, context, Policy(policy));
            *out_run = Common<P>::self(instance).spawn(Context(context), Policy(policy), stdio).release();
        });
    }
    static oms_status signal(void*, void* run, int32_t signal_number) noexcept {
        return guarded(nullptr, [&] { static_cast<Run*>(run)->signal(signal_number); });
    }
    static oms_status wait(void*, void* run, int32_t* exit_code, oms_error* error) noexcept {
        return guarded(error, [&] { *exit_code = static_cast<Run*>(run)->wait(); });
    }
    static void release(void*, void* run) noexcept { delete static_cast<Run*>(run); }
    static oms_status check_verify(void* instance, oms_error* error) noexcept {
        return guarded(error, [&] { Common<P>::self(instance).check_verify(); });
    }
    // The features a plugin class declares as static members (explain_model,
    // verify_network).
    static const void* get_extension(void*, const char* id) noexcept {
        if (!id) return nullptr;
        if constexpr (DeclaresExplainModel<P>::value) {
            static const oms_explain_model model{sizeof(oms_explain_model), P::explain_model};
            if (std::strcmp(id, OMS_EXTENSION_EXPLAIN_MODEL) == 0) return &model;
        }
        if constexpr (DeclaresVerifyPlan<P>::value) {
            static const oms_verify_plan plan{sizeof(oms_verify_plan), P::verify_network, P::verify_network_text,
                                              verify_launcher_of<P>(), verify_flags_of<P>(), &check_verify};
            if (std::strcmp(id, OMS_EXTENSION_VERIFY_PLAN) == 0) return &plan;
        }
        return nullptr;
    }
    static oms_status end_task(void* instance, const oms_run_context* context, const oms_report_sink* report,
                               oms_error* error) noexcept {
        return guarded(error, [&] { Common<P>::self(instance).end_task(Context(context), Report(report)); });
    }
    static const oms_backend_api* api() {
        static const oms_backend_api value{sizeof(oms_backend_api), P::flags, P::strength, P::platforms,
                                           &probe, &render, &spawn, &signal, &wait, &release,
                                           &end_task, kinds, run_flags, &get_extension};
        return &value;
    }
};

template <class P, unsigned Target>
const oms_plugin_descriptor* descriptor(const char* kind, const void* interface) {
    static const oms_plugin_descriptor value{
        sizeof(oms_plugin_descriptor), OMS_ABI_MAJOR, Target, P::id, kind, P::version, P::summary,
        P::config_keys(), P::config_key_count(), &Common<P>::create, &Common<P>::destroy, interface};
    return &value;
}

// A host older than the minor the plugin targets lacks what the plugin may
// use; the header's own minor does not matter (struct_size covers it).
template <unsigned Target>
oms_status entry(uint16_t host_major, uint16_t host_minor, const oms_plugin_descriptor* d,
                 const oms_plugin_descriptor** out, oms_error* error) noexcept {
    if (host_major != OMS_ABI_MAJOR || host_minor < Target) {
        write_error(error, "plugin needs oms ABI " + std::to_string(OMS_ABI_MAJOR) + "." + std::to_string(Target) +
                               ", host has " + std::to_string(host_major) + "." + std::to_string(host_minor));
        return OMS_ERR_UNSUPPORTED;
    }
    *out = d;
    return OMS_OK;
}

}  // namespace detail
#if defined(__GNUC__)
#pragma GCC visibility pop
#endif
}  // namespace oms::sdk

#if defined(_WIN32)
#define OMS_PLUGIN_EXPORT extern "C" __declspec(dllexport)
#else
#define OMS_PLUGIN_EXPORT extern "C" __attribute__((visibility("default")))
#endif

// Export `Class` (derived from oms::sdk::PolicyPlugin) as this library's plugin.
#define OMS_EXPORT_POLICY_PLUGIN(Class)                                                              \
    OMS_PLUGIN_EXPORT oms_status oms_plugin_entry(uint16_t host_major, uint16_t host_minor,          \
                                                  const oms_plugin_descriptor** out, oms_error* error) \
    {                                                                                                \
        return ::oms::sdk::detail::entry<OMS_TARGET_ABI_MINOR>(                                      \
            host_major, host_minor,                                                                  \
            ::oms::sdk::detail::descriptor<Class, OMS_TARGET_ABI_MINOR>(OMS_KIND_POLICY,             \
                                                  ::oms::sdk::detail::PolicyTrampolines<Class>::api()), \
            out, error);                                                                             \
    }

// Export `Class` (derived from oms::sdk::BackendPlugin) as this library's plugin.
#define OMS_EXPORT_BACKEND_PLUGIN(Class)                                                             \
    OMS_PLUGIN_EXPORT oms_status oms_plugin_entry(uint16_t host_major, uint16_t host_minor,          \
                                                  const oms_plugin_descriptor** out, oms_error* error) \
    {                                                                                                \
        return ::oms::sdk::detail::entry<OMS_TARGET_ABI_MINOR>(                                      \
            host_major, host_minor,                                                                  \
            ::oms::sdk::detail::descriptor<Class, OMS_TARGET_ABI_MINOR>(                             \
                OMS_KIND_BACKEND,                                                                    \
                ::oms::sdk::detail::BackendTrampolines<Class, OMS_TARGET_ABI_MINOR>::api()),         \
            out, error);                                                                             \
    }

#endif  // OMS_SDK_HPP
