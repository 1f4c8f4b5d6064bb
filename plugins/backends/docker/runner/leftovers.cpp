#include "leftovers.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace oms::docker::runner {

namespace {

// The runner's children that are not command handlers: processes that left
// their command's group and outlived it (the runner is their subreaper).
std::vector<pid_t> orphans(const std::vector<pid_t>& handlers) {
    std::vector<pid_t> out;
    const pid_t self = getpid();
    DIR* proc = opendir("/proc");
    if (!proc) return out;
    while (dirent* entry = readdir(proc)) {
        const pid_t pid = static_cast<pid_t>(std::atoi(entry->d_name));
        if (pid <= 1 || pid == self) continue;
        char path[64], stat[512];
        std::snprintf(path, sizeof path, "/proc/%d/stat", pid);
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0) continue;
        ssize_t n = read(fd, stat, sizeof stat - 1);
        close(fd);
        if (n <= 0) continue;
        stat[n] = '\0';
        const char* after_name = std::strrchr(stat, ')');  // the name may hold spaces and parentheses
        int ppid = 0;
        if (after_name && std::sscanf(after_name + 1, " %*c %d", &ppid) == 1 && ppid == self &&
            std::find(handlers.begin(), handlers.end(), pid) == handlers.end())
            out.push_back(pid);
    }
    closedir(proc);
    return out;
}

}  // namespace

// A fork bomb keeps forking, so repeat until the group is empty.
bool kill_group(pid_t group) {
    bool any = false;
    for (int round = 0; round < 400 && kill(-group, SIGKILL) == 0; ++round) {
        any = true;
        usleep(5000);
    }
    return any;
}

long pids_limit_hits() {
    for (const char* path : {"/sys/fs/cgroup/pids/pids.events", "/sys/fs/cgroup/pids.events"}) {
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0) continue;
        char text[128];
        ssize_t n = read(fd, text, sizeof text - 1);
        close(fd);
        if (n <= 0) continue;
        text[n] = '\0';
        long count = -1;
        if (std::sscanf(text, "max %ld", &count) == 1) return count;
    }
    return -1;
}

// Generation by generation: a killed process's children come to the runner in turn.
void kill_leftovers(const std::vector<pid_t>& handlers) {
    for (int round = 0; round < 200; ++round) {
        std::vector<pid_t> left = orphans(handlers);
        if (left.empty()) return;
        for (pid_t pid : left) kill(pid, SIGKILL);
        while (waitpid(-1, nullptr, WNOHANG) > 0) {
        }
        usleep(2000);
    }
}

void reap(std::vector<pid_t>& handlers, std::initializer_list<pid_t*> watched) {
    pid_t pid;
    while ((pid = waitpid(-1, nullptr, WNOHANG)) > 0) {
        handlers.erase(std::remove(handlers.begin(), handlers.end(), pid), handlers.end());
        for (pid_t* helper : watched)
            if (*helper == pid) *helper = 0;
    }
}

}  // namespace oms::docker::runner
