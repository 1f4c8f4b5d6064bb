// Which folders must never become a read root, whatever put them forward (a
// PATH entry, a variable, a flag, a config key, a linked worktree's .git
// file): `/`, HOME, a folder above HOME, and a folder holding one of the
// secret folders (~/.ssh, ~/.aws ...) or lying inside one. Such a root
// would reopen every file of HOME, or what secret-deny closes.
//
// And which paths a command could have swapped: a path that, resolved, goes
// through a link lying inside a write root (the worktree, the temp folders).
// Run 1 replaces <worktree>/bin with a link to HOME; run 2 must not follow it.
#pragma once
#include <oms/sdk.hpp>

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace oms::policies {

class RootGuard {
public:
    // `write_roots`: the folders commands may write (as given; resolved here).
    RootGuard(const oms::sdk::Host& host, const oms::sdk::Context& context, const std::vector<std::string>& write_roots);

    // Why `root` (links resolved) cannot be a read root, or nullopt when it can.
    std::optional<std::string> forbidden_reason(std::string_view root) const;

    // `path` resolved one link at a time, as the checks see it.
    struct Resolution {
        std::optional<std::string> refusal;   // why it cannot be trusted
        std::optional<std::string> resolved;  // the real path, when it exists and is trusted
    };
    // Refused when resolving it follows a link that lies inside a write root,
    // or when it resolves differently a moment later (a command running
    // beside this one swapped a folder on the way for a link, or back): the
    // path returned is the one that was checked, never what a second look
    // found. Each path is resolved once per guard (one policy's
    // contribution): rustup's dozen program links all lead to one install,
    // and a root is often put forward by several sources.
    Resolution resolve(std::string_view path) const;

    // Why `path` (as given) cannot be trusted (resolve()'s refusal), or nullopt.
    std::optional<std::string> swappable_reason(std::string_view path) const;

    // `path` resolved, when it exists and neither check objects; otherwise
    // nullopt, after a warning naming `source` when a check objected.
    std::optional<std::string> checked(std::string_view path, std::string_view source) const;

private:
    Resolution walk(std::string_view path) const;     // resolve() without the second look
    Resolution resolve_now(std::string_view path) const;  // resolve() without the memory
    const oms::sdk::Host& host_;
    std::vector<std::string> homes_;           // HOME resolved, and as given when different
    std::vector<std::string> secret_folders_;  // existing secret folders, resolved
    std::vector<std::string> write_roots_;     // existing write roots, resolved
    mutable std::map<std::string, Resolution, std::less<>> resolutions_;  // resolve()'s answers so far
};

// The folders a command may have written before this run, as far as a
// read-side plugin knows them: the worktree, the run's private HOME and temp
// folder, the platform's system temp folders and the read-write mounts.
std::vector<std::string> command_write_roots(const oms::sdk::Context& context);

}  // namespace oms::policies
