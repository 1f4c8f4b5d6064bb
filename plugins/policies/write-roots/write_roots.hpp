// write-roots: WRITE_ALLOW_TREE for the worktree, the run's private HOME and
// temp folder, the system temp folders, Cargo's download caches and read-write
// mounts; WRITE_SCRATCH_TREE for Cargo's extracted sources and npm's cache
// (read from the host, writes land in a per-run layer); then WRITE_DENY for the task's .git and the pinned verifier
// files, which stay unwritable even inside an allowed tree. A Cargo folder or
// mount that is `/`, HOME, above HOME, holds a secret folder, or is reached
// through a link inside a write root is skipped with a warning.
#pragma once
#include <oms/sdk.hpp>

#include <string>
#include <vector>

namespace oms::policies {

class RootGuard;
class RuleEmitter;

class WriteRoots : public oms::sdk::PolicyPlugin {
public:
    static constexpr const char* id = "write-roots";
    static constexpr const char* version = OMS_VERSION;
    static constexpr const char* summary =
        "allows writes to the worktree, private HOME, temp folders, Cargo caches and read-write mounts; "
        "denies them to .git and pinned files";
    static const oms_config_key* config_keys();
    static size_t config_key_count();

    explicit WriteRoots(oms::sdk::Host host) : PolicyPlugin(host) {}
    void contribute(const oms::sdk::Context& context, const oms::sdk::RuleSink& sink) override;

private:
    // `temp_dirs` when set, else the platform's system temp folders.
    std::vector<std::string> temp_dirs(const oms::sdk::Context& context) const;
    void add_cargo_caches(const oms::sdk::Context& context, const RootGuard& guard, RuleEmitter& emit) const;
    void add_npm_cache(const oms::sdk::Context& context, const RootGuard& guard, RuleEmitter& emit) const;
    void add_read_write_mounts(const oms::sdk::Context& context, const RootGuard& guard, RuleEmitter& emit) const;
    void add_git_denies(const oms::sdk::Context& context, RuleEmitter& emit) const;
    void add_pinned_denies(const oms::sdk::Context& context, RuleEmitter& emit) const;
};

}  // namespace oms::policies
