#include "command_filter.hpp"

#include "command_connects.hpp"

#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/stat.h>

#include <iterator>

#include <oms_seccomp_filters.hpp>  // generated from plugins/seccomp/docker_runner_policy.cpp

namespace oms::docker::runner {

bool restrict_command(int connect_watch_channel) {
    umask(022);
    sock_fprog fprog{static_cast<unsigned short>(std::size(seccomp::kDockerRunnerCommand)),
                     const_cast<sock_filter*>(seccomp::kDockerRunnerCommand)};
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return false;
    hand_over_connect_watch(connect_watch_channel);
    return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &fprog, 0, 0) == 0;
}

}  // namespace oms::docker::runner
