// oms/sdk.hpp: header-only C++17 helpers for plugin authors, on top of the
// plain-C ABI in oms/sdk.h. Needs only the standard library.
//
// A plugin derives from oms::sdk::PolicyPlugin or oms::sdk::BackendPlugin and
// exports itself with OMS_EXPORT_POLICY_PLUGIN / OMS_EXPORT_BACKEND_PLUGIN.
// Every call from the host goes through a noexcept trampoline that turns a
// thrown exception into an oms_status and a message, so no exception ever
// crosses the C boundary.
#ifndef OMS_SDK_HPP
#define OMS_SDK_HPP

#include <oms/sdk.h>

#include <cstddef>
#include <cstring>
#include <exception>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

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
inline const char* rule_kind_name(oms_rule_kind kind) {
    switch (kind) {
        case OMS_RULE_READ_DENY_TREE: return "READ_DENY_TREE";
        case OMS_RULE_READ_ALLOW_TREE: return "READ_ALLOW_TREE";
        case OMS_RULE_READ_DENY: return "READ_DENY";
        case OMS_RULE_READ_DENY_SUFFIX: return "READ_DENY_SUFFIX";
        case OMS_RULE_WRITE_ALLOW_TREE: return "WRITE_ALLOW_TREE";
        case OMS_RULE_WRITE_DENY: return "WRITE_DENY";
        case OMS_RULE_ENV_PASS: return "ENV_PASS";
        case OMS_RULE_NET_CONNECT_LOOPBACK: return "NET_CONNECT_LOOPBACK";
        case OMS_RULE_NET_LISTEN_LOOPBACK: return "NET_LISTEN_LOOPBACK";
        case OMS_RULE_IPC_DENY_SERVICE: return "IPC_DENY_SERVICE";
        case OMS_RULE_WRITE_DENY_NAME: return "WRITE_DENY_NAME";
        case OMS_RULE_WRITE_SCRATCH_TREE: return "WRITE_SCRATCH_TREE";
        default: return nullptr;
    }
}

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
    const std::string walk = dir + "/";
    const bool plain = !dir.empty() && dir[0] == '/' && walk.find("/../") == std::string::npos &&
                       walk.find("/./") == std::string::npos && walk.find("//") == std::string::npos;
    const bool inside = dir == worktree || (worktree == "/" ? plain : dir.compare(0, worktree.size() + 1, worktree + "/") == 0);
    if (!plain || !inside)
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
        if (stride < sizeof(oms_rule)) throw Error(OMS_ERR_INVALID, "policy rules are smaller than ABI 1.0's");
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
    const Host& host() const { return host_; }

private:
    Host host_;
};

// Compile-time facts a plugin class provides as static members:
//   static constexpr const char* id, * version, * summary;
//   static const oms_config_key* config_keys(); static size_t config_key_count();
//   backends also: static constexpr uint32_t flags, strength; static constexpr const char* platforms;
namespace detail {

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

template <class P>
struct BackendTrampolines : Common<P> {
    static oms_status probe(void* instance, const oms_report_sink* report, oms_error* error) noexcept {
        return guarded(error, [&] { Common<P>::self(instance).probe(Report(report)); });
    }
    static oms_status render(void* instance, const oms_run_context* context, const oms_policy* policy,
                             const oms_report_sink* report, oms_error* error) noexcept {
        return guarded(error, [&] {
            Common<P>::self(instance).render(Context(context), Policy(policy), Report(report));
        });
    }
    static oms_status spawn(void* instance, const oms_run_context* context, const oms_policy* policy,
                            oms_stdio stdio, void** out_run, oms_error* error) noexcept {
        return guarded(error, [&] {
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
    static oms_status end_task(void* instance, const oms_run_context* context, const oms_report_sink* report,
                               oms_error* error) noexcept {
        return guarded(error, [&] { Common<P>::self(instance).end_task(Context(context), Report(report)); });
    }
    static const oms_backend_api* api() {
        static const oms_backend_api value{sizeof(oms_backend_api), P::flags, P::strength, P::platforms,
                                           &probe, &render, &spawn, &signal, &wait, &release,
                                           &end_task};
        return &value;
    }
};

template <class P>
const oms_plugin_descriptor* descriptor(const char* kind, const void* interface) {
    static const oms_plugin_descriptor value{
        sizeof(oms_plugin_descriptor), OMS_ABI_MAJOR, OMS_ABI_MINOR, P::id, kind, P::version, P::summary,
        P::config_keys(), P::config_key_count(), &Common<P>::create, &Common<P>::destroy, interface};
    return &value;
}

// A host older than the plugin's minor lacks what the plugin may use.
inline bool host_minor_suffices(unsigned host_minor) {
    const unsigned needed = OMS_ABI_MINOR;
    return host_minor >= needed;
}

inline oms_status entry(uint16_t host_major, uint16_t host_minor, const oms_plugin_descriptor* d,
                        const oms_plugin_descriptor** out, oms_error* error) noexcept {
    if (host_major != OMS_ABI_MAJOR || !host_minor_suffices(host_minor)) {
        write_error(error, "plugin needs oms ABI " + std::to_string(OMS_ABI_MAJOR) + "." +
                               std::to_string(OMS_ABI_MINOR) + ", host has " + std::to_string(host_major) +
                               "." + std::to_string(host_minor));
        return OMS_ERR_UNSUPPORTED;
    }
    *out = d;
    return OMS_OK;
}

}  // namespace detail
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
        return ::oms::sdk::detail::entry(                                                            \
            host_major, host_minor,                                                                  \
            ::oms::sdk::detail::descriptor<Class>(OMS_KIND_POLICY,                                   \
                                                  ::oms::sdk::detail::PolicyTrampolines<Class>::api()), \
            out, error);                                                                             \
    }

// Export `Class` (derived from oms::sdk::BackendPlugin) as this library's plugin.
#define OMS_EXPORT_BACKEND_PLUGIN(Class)                                                             \
    OMS_PLUGIN_EXPORT oms_status oms_plugin_entry(uint16_t host_major, uint16_t host_minor,          \
                                                  const oms_plugin_descriptor** out, oms_error* error) \
    {                                                                                                \
        return ::oms::sdk::detail::entry(                                                            \
            host_major, host_minor,                                                                  \
            ::oms::sdk::detail::descriptor<Class>(OMS_KIND_BACKEND,                                  \
                                                  ::oms::sdk::detail::BackendTrampolines<Class>::api()), \
            out, error);                                                                             \
    }

#endif  // OMS_SDK_HPP
