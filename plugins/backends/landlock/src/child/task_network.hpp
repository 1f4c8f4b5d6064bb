// One loopback per task: the runs of one worktree with the same relayed
// ports share a network namespace while any of them runs, so a server one
// run has listening (`oms run -- npm run dev &`) is reached by the task's
// next runs, as in the docker backend's warm container. Nothing holds the
// namespace between runs: it lives as long as a run in it does, and a
// server lives as long as the run that started it (its PID namespace), so
// nothing of a run outlives it. A run with no live run to join makes a new
// namespace, as before.
//
// Each live run is a member file, STATE/landlock-net/KEY/PID, a link whose
// text names its init (host pid, start time, network namespace inode). A new run opens a
// pidfd of a member's init, checks it is still that process in that
// namespace (never the host's own), and enters its network through the
// pidfd (setns), so a recycled pid or a member gone since is never joined.
// The key's lock is held from the look until the new run is a member: two
// runs starting together make one namespace, not two.
//
// Each run answers its own lookups on an address of its own (127.0.0.1 for
// the run that made the namespace, 127.64+.x.y from its oms pid for the
// others, named in its resolv.conf), so every refusal is its own run's.
#pragma once
#include <stdint.h>
#include <sys/types.h>

#include <string>
#include <vector>

namespace oms::landlock {

class TaskNetwork {
public:
    static constexpr uint32_t kOwnResolver = 0x7f000001;  // 127.0.0.1

    // Finds a live run of `worktree` whose relayed ports are `relay_ports`,
    // under `state_dir`, and locks the key until enroll() or the end. With
    // no state folder, or no member alive, the run makes its own namespace.
    TaskNetwork(const std::string& state_dir, const std::string& worktree, const std::vector<uint16_t>& relay_ports);
    ~TaskNetwork();
    TaskNetwork(const TaskNetwork&) = delete;
    TaskNetwork& operator=(const TaskNetwork&) = delete;

    // A pidfd of the init whose network the run enters, or -1: a new one.
    int join_pidfd() const { return join_pidfd_; }
    // Where the run's resolver answers (host byte order).
    uint32_t resolver_address() const { return resolver_; }
    // Once the run's init has its network: records it as a member for the
    // runs after it, and lets them look.
    void enroll(pid_t init_pid);

private:
    bool join_first_live_member();
    void release_lock();

    std::string folder_;       // STATE/landlock-net/KEY ("": not shared)
    std::string member_file_;  // this run's, once enrolled
    int lock_fd_ = -1;
    int join_pidfd_ = -1;
    uint32_t resolver_ = kOwnResolver;
};

// The run's resolver address when it joins a namespace: from `pid`, unique
// among live oms processes, away from 127.0.0.0/16.
uint32_t joined_resolver_address(pid_t pid);

}  // namespace oms::landlock
