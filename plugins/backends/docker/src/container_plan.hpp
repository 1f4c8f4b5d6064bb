// The container a command runs in, as `docker run` flags: the hardening every
// container gets, the limits, the mounts rendered from the policy, and the
// environment (passed by name only). Both modes use the same flags; they
// differ only in where HOME and TMPDIR live (see Mode).
#pragma once
#include "run_inputs.hpp"
#include "settings.hpp"

#include <oms/keypair_notice.hpp>

#include <string>
#include <vector>

namespace oms::docker {

enum class Mode {
    OneShot,  // one container per command: tmpfs at the run's private HOME and TMPDIR paths
    Warm,     // one container per task: tmpfs at kWarmHome, TMPDIR=/tmp, shared by the task's commands
};

inline constexpr const char* kWarmHome = "/tmp/oms-home";

struct ContainerPlan {
    std::string image;                 // pinned reference
    std::string user;                  // "uid:gid"
    std::vector<std::string> flags;    // docker run flags, image and command excluded
    std::vector<std::string> env;      // NAME=value the command gets
    std::vector<std::string> notes;    // policy parts rendered inexactly (for render and warnings)
    // What the keypair search matched, judged at run start (keypair_notice.hpp):
    // the lines are made when a command runs, not when a plan is shown, since
    // giving one records it.
    std::vector<sdk::SeenKeypairMatch> keypair_matches;
    std::vector<std::string> keypair_suffixes;
    // "DEV:INO:PATH" of each path bound from below the worktree (.git, pinned
    // files, their folders), as checked on the host: the runner refuses to
    // run a command when the container shows something else there (a link
    // swapped in between the check and the daemon's mount).
    std::vector<std::string> expected;
    // Arguments for the runner before its socket or --exec (--relay=PORTS).
    std::vector<std::string> runner_args;
};

// `user` normalized to "uid:gid" (a lone uid gets the same gid, never group 0).
std::string normalized_user(const std::string& user);

// Builds the plan. `image` and `user` are already resolved (config over manifest
// over default). Refuses mounts touching the Docker socket (`socket`). Throws
// sdk::Error(OMS_ERR_UNSUPPORTED) when secret files cannot all be found and the
// run is not best-effort.
ContainerPlan plan_container(const Settings& settings, const std::string& image, const std::string& user,
                             const RunInputs& in, Mode mode, const std::string& socket);

// The names of plan.env, one `-e NAME` each: values stay out of argv.
std::vector<std::string> env_flags(const ContainerPlan& plan);

// Where the runner and its socket folder appear inside a container.
inline constexpr const char* kRunnerInContainer = "/.oms/runner";

// `argv` started through the runner's --exec, which restricts the command
// (umask, seccomp filter) and keeps only plan.env's variables (docker adds
// HOSTNAME and the image's ENV) before executing it: one-shot and terminal
// commands.
std::vector<std::string> restricted_argv(const ContainerPlan& plan, const std::vector<std::string>& argv);

inline constexpr const char* kSocketDirInContainer = "/.oms/sock";
inline constexpr const char* kSocketName = "runner.sock";
inline constexpr const char* kLifelineSocketName = "life.sock";  // one-shot: one_shot_lifeline.hpp

// docker run --rm ... for one command, the runner mounted read-only to start
// it as the container's PID 1, tied to oms by the lifeline in `socket_dir`
// (the run's socket folder, read-only at kSocketDirInContainer; empty only
// where the command is shown, not run), labelled with `labels`.
std::vector<std::string> one_shot_argv(const Settings& settings, const ContainerPlan& plan, const std::string& name,
                                       const std::vector<std::string>& argv, bool interactive,
                                       const std::string& runner_path, const std::string& socket_dir = "",
                                       const std::vector<std::string>& labels = {});

// docker run -d ... for a task's warm container: the plan's flags, plus the
// runner binary (read-only) and its socket folder, with the runner as the
// container's process (its PID 1).
std::vector<std::string> warm_create_argv(const Settings& settings, const ContainerPlan& plan,
                                          const std::string& name, const std::vector<std::string>& labels,
                                          const std::string& runner_path, const std::string& socket_dir);

}  // namespace oms::docker
