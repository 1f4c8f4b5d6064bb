// toolchain-roots: READ_ALLOW_TREE rules that reopen, below the denied HOME,
// what commands need to read: the worktree, toolchains, PATH, the user's
// installs of tools (pip's user site, pipx, npm's prefix, Go, gems) and the
// installs PATH programs under HOME link to, the git folders of a linked
// worktree, read-only mounts and the Surfpool binary. Only roots
// that exist are emitted, each with symlinks resolved and at most once; a
// root that is `/`, HOME, above HOME or holds a secret folder, or that is
// reached through a link inside a write root, is skipped with a warning.
#pragma once
#include <oms/sdk.hpp>

#include <string>
#include <string_view>

namespace oms::policies {

class RootGuard;
class RuleEmitter;

class ToolchainRoots : public oms::sdk::PolicyPlugin {
public:
    static constexpr const char* id = "toolchain-roots";
    static constexpr const char* version = OMS_VERSION;
    static constexpr const char* summary =
        "reopens reads of the worktree, toolchains (node, cargo, rustup, solana...), PATH, linked-worktree "
        "git folders, read-only mounts and Surfpool";
    static const oms_config_key* config_keys();
    static size_t config_key_count();

    explicit ToolchainRoots(oms::sdk::Host host) : PolicyPlugin(host) {}
    void contribute(const oms::sdk::Context& context, const oms::sdk::RuleSink& sink) override;

private:
    // Adds `path` resolved unless the root guard refuses it (it warns then, naming `reason`).
    void add_guarded(const RootGuard& guard, RuleEmitter& emit, std::string_view path, std::string_view reason) const;
    void add_node(const oms::sdk::Context& context, const RootGuard& guard, RuleEmitter& emit) const;
    void add_home_toolchains(const oms::sdk::Context& context, const RootGuard& guard, RuleEmitter& emit) const;
    void add_path_entries(const oms::sdk::Context& context, const RootGuard& guard, RuleEmitter& emit) const;
    void add_user_installs(const oms::sdk::Context& context, const RootGuard& guard, RuleEmitter& emit) const;
    void add_path_program_links(const oms::sdk::Context& context, const RootGuard& guard, RuleEmitter& emit) const;
    void add_program_link(const RootGuard& guard, RuleEmitter& emit, const std::string& link,
                          const std::string& home) const;
    void add_linked_git(const oms::sdk::Context& context, const RootGuard& guard, RuleEmitter& emit) const;
    void add_mounts_and_surfpool(const oms::sdk::Context& context, const RootGuard& guard, RuleEmitter& emit) const;
};

}  // namespace oms::policies
