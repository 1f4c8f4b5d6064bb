// The throw-away world a backend is checked in: a fake HOME holding secrets,
// a worktree (a git folder, a pinned file, a keypair file) below it, a
// folder outside every write root, and per run a private HOME and temp
// folder, plus the run context and the policy the spec would give. All of
// it lives in one temporary folder removed at the end.
#pragma once
#include <oms/sdk.h>

#include <cstdint>
#include <string>
#include <vector>

namespace oms::backend_check {

struct OwnedRule {
    oms_rule_kind kind;
    std::string value;
    int64_t number;
    std::string origin;
};

class Scene {
public:
    // `helper_source`: the static in-sandbox helper (oms-backend-check-helper),
    // copied into the worktree, the one folder every backend lets a command
    // read and run. `owner`: when the checker runs as root and it is set, the
    // worktree, the private HOME and the temp folder are given to this
    // "uid:gid" (a backend that runs commands as the worktree's owner, never
    // as root, needs it to write them); ignored otherwise.
    Scene(const std::string& helper_source, const std::string& owner);
    ~Scene();
    Scene(const Scene&) = delete;
    Scene& operator=(const Scene&) = delete;

    std::string root, home, worktree, outside;
    std::string home_secret, keypair, pinned, git_config, worktree_file;
    std::string helper;              // the in-sandbox helper's path (in the worktree)
    std::string agent_socket;        // a daemon-like socket named by SSH_AUTH_SOCK
    std::string private_home, temp;  // of the current run (see new_run)
    // The files of the precedence table (precedence_table.hpp), each holding
    // its row's marker where the row reads.
    struct TableFiles {
        std::string denied_in_allowed;          // READ_DENY folder inside the worktree
        std::string allowed_in_denied_tree;     // in the worktree, below HOME
        std::string in_denied_tree;             // elsewhere under HOME
        std::string suffix_in_allowed;          // *-keypair.json in the worktree
        std::string exempt_suffix;              // *-keypair.json a READ_ALLOW_TREE names exactly
        std::string denied_exempt;              // the same, also named by a READ_DENY
        std::string write_root_in_denied_tree;  // a WRITE_ALLOW_TREE folder under HOME
        std::string write_denied;               // in a WRITE_DENY folder inside the worktree
        std::string outside_file;               // outside every write root
        std::string denied_by_name;             // below a nested .git (WRITE_DENY_NAME)
    } table;
    // The backend's rule kinds: policy() lowers the rules into them the way
    // oms does (oms/abi_lowering.hpp) and keeps what it rewrote in `lowered`.
    uint64_t backend_kinds = ~uint64_t{0};
    std::string backend_id = "backend";
    std::vector<std::string> lowered;
    int allowed_port = 0, denied_port = 0;
    std::vector<OwnedRule> rules;
    std::vector<std::string> env;          // the command's exact environment
    std::vector<std::string> parent_env;   // the caller's: more than env, with a secret
    std::vector<std::string> pinned_files;

    // A fresh private HOME and temp folder (the host's job), and rebuilt env.
    void new_run();
    // Sets ports after the listeners are bound.
    void set_ports(int allowed, int denied);

    // Views for the ABI, valid until the next call.
    const oms_run_context* context(const std::vector<std::string>& argv);
    const oms_policy* policy();

private:
    bool give_away_ = false;
    unsigned owner_uid_ = 0, owner_gid_ = 0;
    int run_number_ = 0;
    void give_to_owner(const std::string& path) const;
    void build_rules();
    void plant_table_files();
    std::vector<std::string> argv_;
    std::vector<const char*> argv_view_, parent_view_, pinned_view_, env_view_;
    std::vector<OwnedRule> handed_;  // the rules after lowering
    std::vector<oms_rule> rule_view_;
    oms_run_context context_{};
    oms_policy policy_{};
};

// Small filesystem helpers (throw std::runtime_error naming the path).
void write_text(const std::string& path, const std::string& text);
std::string read_text(const std::string& path);  // "" when unreadable
bool path_exists(const std::string& path);
void make_folder(const std::string& path);
void copy_executable(const std::string& from, const std::string& to);
bool remove_tree(const std::string& path);  // true when nothing is left

}  // namespace oms::backend_check
