#include "start_probe.hpp"

#include "child_spec.hpp"
#include "landlock_uapi.hpp"
#include "launcher.hpp"
#include "mask_sources.hpp"
#include "scoped_fd.hpp"
#include "start_refusal.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <exception>

namespace oms::landlock {

namespace {

const char* true_program() {
    for (const char* path : {"/usr/bin/true", "/bin/true"})
        if (access(path, X_OK) == 0) return path;
    return nullptr;
}

// The smallest run that still takes every step a real one does: its own
// network, a read-only root with a private /tmp, Landlock allowing reads
// and execution only, the run's seccomp filter.
Plan probe_plan(const char* program, bool watch_connects) {
    Plan plan;
    plan.worktree = "/";
    plan.working_dir = "/";
    plan.working_dir_below = ".";
    plan.program = program;
    plan.argv = {program};
    plan.private_temps = {"/tmp"};
    plan.path_rules.push_back(PathRule{"/", uapi::kReadRights, "start probe"});
    plan.own_network = true;
    plan.watch_connects = watch_connects;
    return plan;
}

StartVerdict start_true(const char* program, const KernelFeatures& features, const SeccompProgram& seccomp,
                        bool watch_connects) {
    ScopedFd null_device(open("/dev/null", O_RDWR | O_CLOEXEC));
    if (null_device.get() < 0) return {false, "landlock: cannot open /dev/null to check a start"};
    Plan plan = probe_plan(program, watch_connects);
    MaskSources masks("/tmp");
    ChildSpec spec = make_child_spec(plan, features, seccomp, masks);
    for (int& fd : spec.stdio) fd = null_device.get();
    try {
        const int status = launch(spec)->wait();
        if (status == 0) return {true, ""};
        return {false, "landlock: a confined `true` exited " + std::to_string(status) + " here"};
    } catch (const LaunchFailure& failure) {
        return {false, start_refusal(failure.step(), failure.error_number(), geteuid() == 0,
                                     read_user_namespace_switches())};
    }
}

}  // namespace

StartVerdict probe_a_start(const KernelFeatures& features, const SeccompProgram& seccomp, bool watch_connects) {
    const char* program = true_program();
    if (!program) return {false, "landlock: no /usr/bin/true or /bin/true to check a start with"};
    try {
        return start_true(program, features, seccomp, watch_connects);
    } catch (const std::exception& e) {
        return {false, std::string("landlock: could not check a start: ") + e.what()};
    }
}

}  // namespace oms::landlock
