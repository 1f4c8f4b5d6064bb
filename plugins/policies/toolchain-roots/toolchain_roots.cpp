#include "toolchain_roots.hpp"

#include "config_lists.hpp"
#include "linked_worktree.hpp"
#include "node_root.hpp"
#include "paths.hpp"
#include "rule_emitter.hpp"

#include <string>

namespace oms::policies {
namespace {

const oms_config_key keys[] = {
    {sizeof(oms_config_key), "extra", OMS_CONFIG_STRING_ARRAY, 0,
     "more folders commands may read below HOME (absolute or ~/...; missing ones are skipped); default []"},
};

// The spec's toolchain folders under HOME, in the spec's order.
const char* const home_toolchains[] = {".cargo", ".rustup", ".local/share/solana", ".avm",
                                       ".nvm",   ".volta",  ".bun",                ".fnm"};

constexpr oms_rule_kind allow = OMS_RULE_READ_ALLOW_TREE;

}  // namespace

const oms_config_key* ToolchainRoots::config_keys() { return keys; }
size_t ToolchainRoots::config_key_count() { return sizeof keys / sizeof keys[0]; }

void ToolchainRoots::contribute(const oms::sdk::Context& context, const oms::sdk::RuleSink& sink) {
    // Config first: a bad entry fails the run before any rule is added.
    const auto extras = config_paths(host(), id, "extra", context.home(), RelativePaths::refuse);
    RuleEmitter emit(sink, id);
    emit.add_existing(allow, context.worktree(), "worktree");
    add_node(context, emit);
    add_home_toolchains(context, emit);
    add_path_entries(context, emit);
    add_linked_git(context, emit);
    add_mounts_and_surfpool(context, emit);
    for (const std::string& folder : extras) emit.add_existing(allow, folder, "extra (config)");
}

void ToolchainRoots::add_node(const oms::sdk::Context& context, RuleEmitter& emit) const {
    const auto path = context.env("PATH");
    if (!path) return;
    if (const auto node = find_node(*path)) emit.add_existing(allow, node_install_root(*node), "node install root");
}

void ToolchainRoots::add_home_toolchains(const oms::sdk::Context& context, RuleEmitter& emit) const {
    for (const char* folder : home_toolchains)
        emit.add_existing(allow, join(context.home(), folder), std::string("toolchain folder ~/") + folder);
    // The allowlist passes CARGO_HOME and RUSTUP_HOME, so tools look there when
    // they are set; without their folder readable the variables would be useless.
    for (const char* variable : {"CARGO_HOME", "RUSTUP_HOME"}) {
        const auto value = context.env(variable);
        if (value && is_absolute(*value)) emit.add_existing(allow, *value, std::string("$") + variable);
    }
}

void ToolchainRoots::add_path_entries(const oms::sdk::Context& context, RuleEmitter& emit) const {
    const auto path = context.env("PATH");
    if (!path) return;
    // Relative and empty entries mean "the current folder": the worktree, already open.
    for (std::string_view entry : split_path_list(*path))
        if (is_absolute(entry)) emit.add_existing(allow, entry, "PATH entry");
}

void ToolchainRoots::add_linked_git(const oms::sdk::Context& context, RuleEmitter& emit) const {
    const auto dirs = find_linked_git_dirs(context.worktree());
    if (!dirs) return;
    emit.add_existing(allow, dirs->git_dir, "linked worktree git dir");
    if (dirs->common_dir) emit.add_existing(allow, *dirs->common_dir, "linked worktree common git dir");
}

void ToolchainRoots::add_mounts_and_surfpool(const oms::sdk::Context& context, RuleEmitter& emit) const {
    for (std::string_view mount : context.read_only()) {
        if (real_path(mount))
            emit.add_existing(allow, mount, "read-only mount");
        else
            host().log(OMS_LOG_WARN, "read-only mount '" + std::string(mount) + "' does not exist; skipped");
    }
    if (const auto surfpool = context.surfpool()) emit.add_existing(allow, *surfpool, "Surfpool binary");
}

}  // namespace oms::policies
