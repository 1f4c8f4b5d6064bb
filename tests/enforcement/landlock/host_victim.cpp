#include "host_victim.hpp"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

namespace oms::test {

HostVictim::HostVictim() {
    pid = fork();
    if (pid == 0) {
        execl("/bin/sleep", "sleep", "4242.5", static_cast<char*>(nullptr));
        _exit(127);
    }
}

HostVictim::~HostVictim() {
    if (pid <= 0) return;
    kill(pid, SIGKILL);
    waitpid(pid, nullptr, 0);
}

bool HostVictim::alive() const { return waitpid(pid, nullptr, WNOHANG) == 0 && kill(pid, 0) == 0; }

}  // namespace oms::test
