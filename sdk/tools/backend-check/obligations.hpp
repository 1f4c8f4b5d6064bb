// The obligations a backend is checked against, one result line each. See
// docs/backend-checklist.md for why each exists.
#pragma once
#include "command_run.hpp"
#include "listener.hpp"
#include "loaded_backend.hpp"
#include "scene.hpp"

#include <string>
#include <vector>

namespace oms::backend_check {

// not_run: a run obligation of a backend that cannot run on this host
// (--render-only): not executed, never a pass.
enum class Verdict { pass, fail, not_granted, not_checked, not_run };

struct Result {
    std::string obligation;
    Verdict verdict;
    std::string reason;
};

// Everything a check needs: the backend, the world, the host-side listeners.
struct Bench {
    const LoadedBackend& backend;
    Scene& scene;
    std::string helper;                 // the in-sandbox helper (env, connect), in the worktree
    std::vector<std::string> missing;   // the probe's MISSING lines
    std::vector<std::string> details;   // the probe's DETAIL lines
    Listener& allowed_port;
    Listener& denied_port;
    Listener& agent_socket;             // outside, named by SSH_AUTH_SOCK
    Listener& worktree_socket;          // inside the worktree (positive control)
    std::string worktree_socket_path;

    Outcome run(const std::vector<std::string>& argv, const std::string& stdin_text = "") {
        return run_command(backend, scene, {argv, stdin_text, nullptr, 20});
    }
    Outcome shell(const std::string& script) { return run({"/bin/sh", "-c", script}); }
    // The probe declared it cannot grant this allow rule (a MISSING line
    // beginning with the rule's name, e.g. "net-connect-loopback: ..."); the
    // line or "".
    std::string declared_not_granted(const std::string& rule_kind) const;
    // The probe declared the command's HOME lives inside the sandbox (a
    // DETAIL line beginning "private-home: in-sandbox"); the line or "".
    std::string declared_in_sandbox_home() const;
};

// What any backend must do, confining or not.
std::vector<Result> check_process_obligations(Bench& bench);
// Keypair attacks across runs (obligations_keypair_runs.cpp).
std::vector<Result> check_keypair_attacks(Bench& bench);
// What a confining backend must do on top.
std::vector<Result> check_confinement_obligations(Bench& bench);

inline bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }
// A path as one double-quoted shell word (the kit's own paths: no quote or $ in them).
inline std::string quoted(const std::string& path) { return "\"" + path + "\""; }

// Prints one result line (main.cpp).
void print_result(const Result& result);

// The names of the run obligations, in the order they are printed.
const std::vector<std::string>& process_obligation_names();
const std::vector<std::string>& confinement_obligation_names();

// Describes a failed spawn or an unexpected status for a reason text.
std::string describe(const Outcome& outcome);

}  // namespace oms::backend_check
