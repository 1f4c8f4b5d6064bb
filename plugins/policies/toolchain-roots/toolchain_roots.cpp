#include "toolchain_roots.hpp"

#include "config_lists.hpp"
#include "linked_worktree.hpp"
#include "node_root.hpp"
#include "npm_prefix.hpp"
#include "paths.hpp"
#include "program_links.hpp"
#include "python_user_site.hpp"
#include "root_guard.hpp"
#include "rule_emitter.hpp"

#include <oms/path.hpp>
#include <oms/path_resolver.hpp>

#include <set>
#include <string>

namespace oms::policies {
namespace {

const oms_config_key keys[] = {
    {sizeof(oms_config_key), "extra", OMS_CONFIG_STRING_ARRAY, 0,
     "more folders commands may read below HOME (absolute or ~/...; missing ones are skipped); default []"},
};

// The spec's toolchain folders under HOME, in the spec's order, then fnm's
// folder on Linux (XDG data home; ~/.fnm is where older fnm and macOS keep it)
// and the shim-based managers: a shim on PATH runs the manager's own
// program from its folder, so the PATH entry alone is not enough. Then the
// user installs of other tools, each only the folder the tool runs from:
// pipx's virtual environments (~/.local/share/pipx; ~/.local/pipx before
// pipx 1.2), Go's installed programs and module cache (not ~/go/src, which
// may hold other checkouts), and the gems of `gem install --user-install`
// (~/.gem/ruby, or ~/.local/share/gem/ruby; never ~/.gem itself, which holds
// the rubygems.org API key in ~/.gem/credentials).
const char* const home_toolchains[] = {".cargo",          ".rustup",      ".local/share/solana", ".avm",
                                       ".nvm",            ".volta",       ".bun",                ".fnm",
                                       ".local/share/fnm", ".pyenv",      ".rbenv",              ".asdf",
                                       ".local/share/mise", ".local/share/pipx", ".local/pipx",  "go/bin",
                                       "go/pkg/mod",      ".gem/ruby",    ".local/share/gem/ruby"};

constexpr oms_rule_kind allow = OMS_RULE_READ_ALLOW_TREE;

}  // namespace

const oms_config_key* ToolchainRoots::config_keys() { return keys; }
size_t ToolchainRoots::config_key_count() { return sizeof keys / sizeof keys[0]; }

void ToolchainRoots::contribute(const oms::sdk::Context& context, const oms::sdk::RuleSink& sink) {
    const sdk::PathResolverScope resolving;  // each folder above the roots looked at once
    // Config first: a bad entry fails the run before any rule is added.
    const auto extras = config_paths(host(), id, "extra", context.home(), RelativePaths::refuse);
    RuleEmitter emit(sink, id);
    const RootGuard guard(host(), context, command_write_roots(context));
    // As the core resolved and checked it: resolving it again could follow a
    // link swapped in since.
    if (sdk::path::is_absolute(context.worktree()) && path_exists(context.worktree()))
        emit.add(allow, context.worktree(), "worktree");
    add_node(context, guard, emit);
    add_home_toolchains(context, guard, emit);
    add_path_entries(context, guard, emit);
    add_user_installs(context, guard, emit);
    add_path_program_links(context, guard, emit);
    add_linked_git(context, guard, emit);
    add_mounts_and_surfpool(context, guard, emit);
    for (const std::string& folder : extras) add_guarded(guard, emit, folder, "extra (config)");
}

void ToolchainRoots::add_guarded(const RootGuard& guard, RuleEmitter& emit, std::string_view path,
                                 std::string_view reason) const {
    if (const auto resolved = guard.checked(path, reason)) emit.add(allow, *resolved, reason);
}

void ToolchainRoots::add_node(const oms::sdk::Context& context, const RootGuard& guard, RuleEmitter& emit) const {
    const auto path = context.env("PATH");
    if (!path) return;
    const auto node = find_node(*path);
    if (!node) return;
    // A `node` found in a folder a command could write may be its link to
    // anywhere; the install root is taken from the very resolution checked.
    const RootGuard::Resolution resolution = guard.resolve(*node);
    if (resolution.refusal) {
        host().log(OMS_LOG_WARN, "node '" + *node + "' is not followed to its install root: " + *resolution.refusal);
        return;
    }
    if (resolution.resolved) add_guarded(guard, emit, node_install_root(*resolution.resolved), "node install root");
}

void ToolchainRoots::add_home_toolchains(const oms::sdk::Context& context, const RootGuard& guard,
                                         RuleEmitter& emit) const {
    // Below HOME, not below a write root: their links are the user's. A link
    // to HOME itself or to a secret folder is still refused.
    for (const char* folder : home_toolchains) {
        const auto resolved = real_path(join(context.home(), folder));
        const std::string reason = std::string("toolchain folder ~/") + folder;
        if (!resolved) continue;
        if (const auto problem = guard.forbidden_reason(*resolved))
            host().log(OMS_LOG_WARN, reason + " (" + *resolved + ") is not opened for reading: " + *problem);
        else
            emit.add(allow, *resolved, reason);
    }
    // The allowlist passes CARGO_HOME and RUSTUP_HOME, so tools look there when
    // they are set; without their folder readable the variables would be useless.
    for (const char* variable : {"CARGO_HOME", "RUSTUP_HOME"}) {
        const auto value = context.env(variable);
        if (value && sdk::path::is_absolute(*value)) add_guarded(guard, emit, *value, std::string("$") + variable);
    }
}

void ToolchainRoots::add_path_entries(const oms::sdk::Context& context, const RootGuard& guard,
                                      RuleEmitter& emit) const {
    const auto path = context.env("PATH");
    if (!path) return;
    // Relative and empty entries mean "the current folder": the worktree, already open.
    for (std::string_view entry : split_path_list(*path))
        if (sdk::path::is_absolute(entry)) add_guarded(guard, emit, entry, "PATH entry");
}

void ToolchainRoots::add_user_installs(const oms::sdk::Context& context, const RootGuard& guard,
                                      RuleEmitter& emit) const {
    // pip's user site under ~/.local, and under $PYTHONUSERBASE when it is set
    // (passed with --env, Python looks there instead).
    std::vector<std::string> userbases{join(context.home(), ".local")};
    if (const auto userbase = context.env("PYTHONUSERBASE"); userbase && sdk::path::is_absolute(*userbase))
        userbases.emplace_back(*userbase);
    for (const std::string& userbase : userbases)
        for (const std::string& site : python_user_sites(userbase)) add_guarded(guard, emit, site, "pip user site");
    // npm's prefix from ~/.npmrc: its packages, and its bin folder of links to them.
    if (const auto prefix = npmrc_prefix(context.home())) {
        add_guarded(guard, emit, join(*prefix, "lib/node_modules"), "npm prefix (~/.npmrc prefix=)");
        add_guarded(guard, emit, join(*prefix, "bin"), "npm prefix (~/.npmrc prefix=)");
    }
}

void ToolchainRoots::add_path_program_links(const oms::sdk::Context& context, const RootGuard& guard,
                                           RuleEmitter& emit) const {
    const auto path = context.env("PATH");
    const auto home = real_path(context.home());
    if (!path || !home) return;
    std::vector<std::string> write_roots;
    for (const std::string& root : command_write_roots(context))
        if (const auto resolved = real_path(root)) write_roots.push_back(*resolved);
    std::set<std::string> listed;  // a folder named twice on PATH (or by two links) is listed once
    for (std::string_view entry : split_path_list(*path)) {
        // Only the user's own folders under HOME: links in a folder a command
        // can write are never followed (the guard would refuse each of them).
        const auto folder = sdk::path::is_absolute(entry) ? real_path(entry) : std::nullopt;
        if (!folder || !sdk::path::is_inside(*folder, *home) || *folder == *home) continue;
        if (!listed.insert(*folder).second) continue;
        bool writable = false;
        for (const std::string& root : write_roots) writable = writable || sdk::path::is_inside(*folder, root);
        if (writable) continue;
        for (const std::string& link : program_links(*folder)) add_program_link(guard, emit, link, *home);
    }
}

void ToolchainRoots::add_program_link(const RootGuard& guard, RuleEmitter& emit, const std::string& link,
                                      const std::string& home) const {
    const RootGuard::Resolution resolution = guard.resolve(link);
    if (resolution.refusal) {
        host().log(OMS_LOG_WARN, "PATH program '" + link + "' is not followed to its install: " + *resolution.refusal);
        return;
    }
    // A link out of HOME leads to something readable already.
    if (!resolution.resolved || !sdk::path::is_inside(*resolution.resolved, home)) return;
    // The install the program runs from, as for node: <root>/bin/<program> gives <root>.
    add_guarded(guard, emit, node_install_root(*resolution.resolved), "install of the PATH program " + link);
}

void ToolchainRoots::add_linked_git(const oms::sdk::Context& context, const RootGuard& guard,
                                    RuleEmitter& emit) const {
    const LinkedWorktree linked = find_linked_git_dirs(context.worktree());
    if (linked.refusal)
        host().log(OMS_LOG_WARN, "the worktree's .git file '" + join(context.worktree(), ".git") +
                                     "' is not followed (no linked-worktree git folder is opened): " + *linked.refusal);
    if (!linked.dirs) return;
    add_guarded(guard, emit, linked.dirs->git_dir, "linked worktree git dir");
    add_guarded(guard, emit, linked.dirs->common_dir, "linked worktree common git dir");
}

void ToolchainRoots::add_mounts_and_surfpool(const oms::sdk::Context& context, const RootGuard& guard,
                                             RuleEmitter& emit) const {
    for (std::string_view mount : context.read_only()) {
        if (real_path(mount))
            add_guarded(guard, emit, mount, "read-only mount (--ro or sandbox.read_only)");
        else
            host().log(OMS_LOG_WARN, "read-only mount '" + std::string(mount) + "' does not exist; skipped");
    }
    if (const auto surfpool = context.surfpool()) emit.add_existing(allow, *surfpool, "Surfpool binary");
}

}  // namespace oms::policies
