#include "leftovers.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>

namespace oms::docker::runner {

namespace {

struct ProcessFacts {
    pid_t parent = 0, group = 0, session = 0;
    bool alive = false;  // neither a zombie nor dead
};

bool read_facts(pid_t pid, ProcessFacts& facts) {
    char path[64], stat[512];
    std::snprintf(path, sizeof path, "/proc/%d/stat", pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return false;
    ssize_t n = read(fd, stat, sizeof stat - 1);
    close(fd);
    if (n <= 0) return false;
    stat[n] = '\0';
    const char* after_name = std::strrchr(stat, ')');  // the name may hold spaces and parentheses
    char state = 0;
    int parent = 0, group = 0, session = 0;
    if (!after_name || std::sscanf(after_name + 1, " %c %d %d %d", &state, &parent, &group, &session) != 4) return false;
    facts = {parent, group, session, state != 'Z' && state != 'X' && state != 'x'};
    return true;
}

std::map<pid_t, ProcessFacts> container_processes() {
    std::map<pid_t, ProcessFacts> out;
    DIR* proc = opendir("/proc");
    if (!proc) return out;
    while (dirent* entry = readdir(proc)) {
        const pid_t pid = static_cast<pid_t>(std::atoi(entry->d_name));
        ProcessFacts facts;
        if (pid > 0 && read_facts(pid, facts)) out[pid] = facts;
    }
    closedir(proc);
    return out;
}

bool kept_pid(pid_t pid, const std::vector<pid_t>& kept) { return std::find(kept.begin(), kept.end(), pid) != kept.end(); }

// Claimed: the runner, a kept process or one of its descendants, a process
// still in a kept command's session or group, or a tree started from
// outside the runner (its topmost process's parent is outside the container).
// `facts_of` gives a process's facts (false when it is gone).
template <typename Lookup>
bool claimed(pid_t pid, const std::vector<pid_t>& kept, Lookup facts_of) {
    const pid_t self = getpid();
    ProcessFacts facts;
    if (pid == self || !facts_of(pid, facts)) return true;  // the runner, or gone meanwhile
    if (kept_pid(facts.group, kept) || kept_pid(facts.session, kept)) return true;
    for (int depth = 0; depth < 4096; ++depth) {
        if (kept_pid(pid, kept)) return true;
        if (!facts_of(pid, facts)) return false;  // an ancestor gone: its orphans are the runner's now
        if (facts.parent == self) return false;   // a child of the runner that no one keeps
        if (facts.parent == 0) return true;       // docker exec's tree, started from outside
        pid = facts.parent;
    }
    return false;
}

bool claimed_in(pid_t pid, const std::map<pid_t, ProcessFacts>& all, const std::vector<pid_t>& kept) {
    return claimed(pid, kept, [&](pid_t p, ProcessFacts& facts) {
        auto found = all.find(p);
        if (found == all.end()) return false;
        facts = found->second;
        return true;
    });
}

// SIGKILL through a pidfd, so a pid reused between the listing and the
// kill (say, by a new command) is never hit; the facts are read again
// after the pidfd pins the process.
bool kill_if_unclaimed(pid_t pid, const std::vector<pid_t>& kept) {
    const int pidfd = static_cast<int>(syscall(SYS_pidfd_open, pid, 0));
    if (pidfd < 0) return false;
    ProcessFacts facts;
    const bool kill_it = read_facts(pid, facts) && facts.alive && !claimed(pid, kept, read_facts);
    if (kill_it) syscall(SYS_pidfd_send_signal, pidfd, SIGKILL, nullptr, 0);
    close(pidfd);
    return kill_it;
}

}  // namespace

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

// A fork bomb keeps forking, so repeat until a listing finds nothing to kill.
bool kill_unclaimed(const std::vector<pid_t>& kept, const std::function<void()>& reap) {
    bool any = false;
    for (int round = 0; round < 400; ++round) {
        const std::map<pid_t, ProcessFacts> all = container_processes();
        std::vector<pid_t> doomed;
        for (const auto& [pid, facts] : all)
            if (facts.alive && !claimed_in(pid, all, kept)) doomed.push_back(pid);
        if (doomed.empty()) return any;
        for (pid_t pid : doomed) any = kill_if_unclaimed(pid, kept) || any;
        reap();
        usleep(2000);
    }
    return any;
}

}  // namespace oms::docker::runner
