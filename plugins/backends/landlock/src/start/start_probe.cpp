#include "start_probe.hpp"

#include "child_spec.hpp"
#include "landlock_uapi.hpp"
#include "landlock_only_plan.hpp"
#include "fresh_dev_plan.hpp"
#include "launcher.hpp"
#include <oms/scoped_fd.hpp>
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

StartVerdict refused(const std::string& line) { return StartVerdict{false, line, 0, ""}; }

// 1: namespaces and Landlock; 2: namespaces alone; 3: Landlock alone.
int rung_of(const StartMode& mode, const KernelFeatures& features) {
    if (!mode.namespaces) return 3;
    return features.abi > 0 ? 1 : 2;
}

StartVerdict start_true(const char* program, const KernelFeatures& features, const StartMode& mode) {
    sdk::ScopedFd null_device(open("/dev/null", O_RDWR | O_CLOEXEC));
    if (null_device.get() < 0) return refused("landlock: cannot open /dev/null to check a start");
    Plan plan = probe_plan(program, mode.watch_connects);
    if (!mode.namespaces) adapt_for_landlock_only(plan);
    else plan_fresh_dev(plan);
    ChildSpec spec = make_child_spec(plan, features, *mode.seccomp);
    spec.extra_seccomp = mode.extra_seccomp;
    for (int& fd : spec.stdio) fd = null_device.get();
    try {
        const int status = launch(spec)->wait();
        if (status == 0) return StartVerdict{true, "", rung_of(mode, features), ""};
        return refused("landlock: a confined `true` exited " + std::to_string(status) + " here");
    } catch (const LaunchFailure& failure) {
        return refused(
            start_refusal(failure.step(), failure.error_number(), geteuid() == 0, read_user_namespace_switches()));
    }
}

}  // namespace

StartVerdict probe_a_start(const KernelFeatures& features, const StartMode& mode) {
    const char* program = true_program();
    if (!program) return refused("landlock: no /usr/bin/true or /bin/true to check a start with");
    try {
        return start_true(program, features, mode);
    } catch (const std::exception& e) {
        return refused(std::string("landlock: could not check a start: ") + e.what());
    }
}

}  // namespace oms::landlock
