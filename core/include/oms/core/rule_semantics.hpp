// The effective decision for one path, port or variable given an assembled
// policy: docs/rule-semantics.md written as code. `oms explain` answers from
// it, and the enforcement tests compare it with what a backend really does.
// Where backends differ (the docs' table says how), the backend's family is
// an input; the rules are never re-derived here, only read.
#pragma once
#include "oms/core/policy.hpp"

#include <optional>
#include <string>
#include <vector>

namespace oms::core {

enum class Access { read, write, exec, connect, listen, env };
// unknown: the backend declares no model to predict it with.
enum class Verdict { allowed, denied, hidden, unknown };

// How a backend enforces the list: the rows of the table that differ. A
// backend names its model (the oms.explain-model/1 extension); a confining
// one without it is `unknown`, never taken for unconfined.
enum class BackendFamily { landlock, seatbelt, docker, unconfined, unknown };

struct SemanticsInputs {
    BackendFamily family = BackendFamily::landlock;
    std::string home;      // the caller's HOME (landlock closes reads below it)
    std::string worktree;  // walked for keypair files by landlock and docker
    std::vector<std::string> mounts_read_only, mounts_read_write;  // docker: --ro, --rw
    std::string program;   // argv[0] resolved: the trusted-listener check
};

struct Decision {
    Verdict verdict = Verdict::denied;
    std::optional<PolicyRule> rule;  // the deciding rule; none when a backend default decides
    std::string because;             // one line: why, in the backend's terms
    std::vector<std::string> notes;  // what else the user should know (private /tmp, ...)
};

// `target` is a path for read/write/exec (absolute, already resolved by the
// caller), a port or HOST:PORT for connect/listen, a variable name for env.
Decision decide(const Policy& policy, const SemanticsInputs& inputs, Access access, const std::string& target);

// OMS_EXPLAIN_MODEL_* to its family; unknown for a model this core lacks.
BackendFamily family_of_model(uint32_t model);
std::optional<Access> access_from_name(const std::string& name);
const char* access_name(Access access);
const char* verdict_name(Verdict verdict);

}  // namespace oms::core
