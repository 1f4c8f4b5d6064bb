#include "write_roots.hpp"

#include "config_lists.hpp"
#include "linked_worktree.hpp"
#include "paths.hpp"
#include "root_guard.hpp"
#include "rule_emitter.hpp"

#include <oms/path.hpp>
#include <oms/path_resolver.hpp>

namespace oms::policies {
namespace {

const oms_config_key keys[] = {
    {sizeof(oms_config_key), "temp_dirs", OMS_CONFIG_STRING_ARRAY, 0,
     "system temp folders commands may write (absolute or ~/...; missing ones are skipped); replaces the "
     "default /tmp, /var/tmp on Linux and /private/tmp, /private/var/folders on macOS"},
};

constexpr oms_rule_kind allow = OMS_RULE_WRITE_ALLOW_TREE;
constexpr oms_rule_kind deny = OMS_RULE_WRITE_DENY;
constexpr oms_rule_kind scratch = OMS_RULE_WRITE_SCRATCH_TREE;

// Cargo's download caches: what was fetched, written through so a later
// offline build finds it. Nothing in them runs as it is.
const char* const cargo_download_caches[] = {"registry/cache", "registry/index", "git/db"};
// Cargo's extracted sources: a later build on the host compiles and runs
// them (build.rs), so a command's change must not outlive the run.
const char* const cargo_extracted_sources[] = {"registry/src", "git/checkouts"};
// npm's cache in its default place: what `npx --offline` and an offline
// `npm install` need. A later npm on the host installs what it holds, so a
// command's change must not outlive the run either. ~/.npm itself is not
// lent (its _logs hold full command lines).
const char* const npm_cache_folders[] = {".npm/_cacache", ".npm/_npx"};

std::vector<std::string> system_temp_dirs(std::string_view platform) {
    if (platform == "macos") return {"/private/tmp", "/private/var/folders"};
    return {"/tmp", "/var/tmp"};
}

// A path oms itself provides (it may not exist yet while `oms policy` runs).
// The core gives it resolved and checked: it is used as given, since a
// second resolution could follow a link swapped in since (a run beside
// this one exchanging a nested worktree for a link). A relative one is
// resolved. An empty one (a context without it) adds nothing.
void add_provided(RuleEmitter& emit, oms_rule_kind kind, std::string_view path, std::string_view reason) {
    if (path.empty()) return;
    const auto resolved = sdk::path::is_absolute(path) ? std::nullopt : real_path(path);
    emit.add(kind, resolved ? std::string_view(*resolved) : path, reason);
}

// A path to protect: as given (even when missing, so it cannot be created) and,
// when a symlink leads elsewhere, its target too.
void add_protected(RuleEmitter& emit, std::string_view path, std::string_view reason) {
    emit.add(deny, path, reason);
    const auto resolved = real_path(path);
    if (resolved && *resolved != path) emit.add(deny, *resolved, std::string(reason) + " (resolved)");
}

}  // namespace

const oms_config_key* WriteRoots::config_keys() { return keys; }
size_t WriteRoots::config_key_count() { return sizeof keys / sizeof keys[0]; }

std::vector<std::string> WriteRoots::temp_dirs(const oms::sdk::Context& context) const {
    auto configured = config_paths(host(), id, "temp_dirs", context.home(), RelativePaths::refuse);
    return configured.empty() ? system_temp_dirs(context.platform()) : configured;
}

void WriteRoots::contribute(const oms::sdk::Context& context, const oms::sdk::RuleSink& sink) {
    const sdk::PathResolverScope resolving;  // each folder above the roots looked at once
    // Config first: a bad entry fails the run before any rule is added.
    const auto temps = temp_dirs(context);
    RuleEmitter emit(sink, id);
    add_provided(emit, allow, context.worktree(), "worktree");
    add_provided(emit, allow, context.private_home(), "private HOME");
    add_provided(emit, allow, context.temp_dir(), "run temp folder");
    for (const std::string& temp : temps) emit.add_existing(allow, temp, "system temp folder");
    // Writing these reaches no file: tools redirect to /dev/null all the time,
    // and a backend that denies all writes would otherwise break them.
    for (const char* device : {"/dev/null", "/dev/zero", "/dev/full", "/dev/tty"})
        emit.add_existing(allow, device, "device that stores nothing");
    const RootGuard guard(host(), context, command_write_roots(context));
    add_cargo_caches(context, guard, emit);
    add_npm_cache(context, guard, emit);
    add_read_write_mounts(context, guard, emit);
    add_git_denies(context, emit);
    add_pinned_denies(context, emit);
}

void WriteRoots::add_cargo_caches(const oms::sdk::Context& context, const RootGuard& guard,
                                  RuleEmitter& emit) const {
    const auto variable = context.env("CARGO_HOME");
    const std::string cargo_home =
        variable && sdk::path::is_absolute(*variable) ? std::string(*variable) : join(context.home(), ".cargo");
    // Only folders that already exist: a missing one cannot be given to a
    // path-based kernel rule, and creating it would need a write to Cargo's home.
    for (const char* cache : cargo_download_caches) {
        const std::string reason = std::string("Cargo download cache ") + cache;
        if (const auto resolved = guard.checked(join(cargo_home, cache), reason)) emit.add(allow, *resolved, reason);
    }
    for (const char* sources : cargo_extracted_sources) {
        const std::string reason = std::string("Cargo extracted sources ") + sources + " (per-run layer)";
        if (const auto resolved = guard.checked(join(cargo_home, sources), reason)) emit.add(scratch, *resolved, reason);
    }
}

void WriteRoots::add_npm_cache(const oms::sdk::Context& context, const RootGuard& guard, RuleEmitter& emit) const {
    if (context.home().empty()) return;
    std::vector<std::string> writable;
    for (const std::string& root : command_write_roots(context))
        if (const auto real = real_path(root)) writable.push_back(*real);
    for (const char* folder : npm_cache_folders) {
        const std::string reason = std::string("npm cache ~/") + folder + " (per-run layer)";
        const auto resolved = guard.checked(join(context.home(), folder), reason);
        // Inside a folder commands write (a ~/.npm linked into a worktree) a
        // layer would not keep their writes from the host: renaming a
        // folder above it moves the tree itself. It stays what it is there.
        if (resolved && !sdk::path::is_inside_any(*resolved, writable)) emit.add(scratch, *resolved, reason);
    }
}

void WriteRoots::add_read_write_mounts(const oms::sdk::Context& context, const RootGuard& guard,
                                       RuleEmitter& emit) const {
    for (std::string_view mount : context.read_write()) {
        if (real_path(mount)) {
            const std::string reason = "read-write mount (--rw or sandbox.read_write)";
            if (const auto resolved = guard.checked(mount, reason)) emit.add(allow, *resolved, reason);
        }
        else
            host().log(OMS_LOG_WARN, "read-write mount '" + std::string(mount) + "' does not exist; skipped");
    }
}

void WriteRoots::add_git_denies(const oms::sdk::Context& context, RuleEmitter& emit) const {
    const std::string dot_git = join(context.worktree(), ".git");
    if (path_exists(dot_git)) add_protected(emit, dot_git, "the task's .git");
    if (const auto linked = find_linked_git_dirs(context.worktree()).dirs)
        emit.add(deny, linked->git_dir, "linked worktree git dir");
    // Nested repositories and submodules: their hooks and config run on the
    // host later just like the task's own.
    emit.add(OMS_RULE_WRITE_DENY_NAME, ".git", "every nested .git");
}

void WriteRoots::add_pinned_denies(const oms::sdk::Context& context, RuleEmitter& emit) const {
    for (std::string_view pinned : context.pinned()) add_protected(emit, pinned, "pinned verifier file");
}

}  // namespace oms::policies
