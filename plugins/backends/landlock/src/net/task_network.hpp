// One loopback per task: the runs of one worktree with the same relayed
// ports share a network namespace, so a server one run has listening
// (`oms run -- npm run dev &`) is reached by the task's next runs, as in the
// docker backend's warm container. A server lives as long as the run that
// started it (its PID namespace): nothing of a run outlives it. The
// network lives as long as a member does: the runs in it, and the holder
// (net_holder_main.cpp) that the run which made it starts, which keeps it
// between runs until none has been alive for the idle time
// ([plugin.landlock] task_network_idle), or until `oms task end`.
//
// Each member is a link, STATE/landlock-net/KEY/PID (task_members.hpp). A
// new run opens a pidfd of a member, checks it is still that process in
// that network (never the host's own), running oms or the holder, and
// enters the network through the pidfd (setns), so a recycled pid, a member
// gone since or a process that is no member is never joined.
// The key's lock (an open file description's write lock on a file no
// command can open for writing) is held from the look until the new run is
// a member, with the holder it starts when it made the network: two runs
// starting together make one network, not two, and a run that joins is a
// member before a later run looks (the member it joined may end at any
// time). A run is a member once its init is in the network and its
// resolver holds its address there, before its mounts and exec
// (ChildSpec::tell_network_entered): the task's next runs do not wait for
// those, and no other run's command is in a new network before its
// resolver holds 127.0.0.1:53. When the member a run chose ends before
// the run enters its network, the run looks again. A lock held more than
// 2 s is not waited for: the run gets a network of its own.
//
// Each run answers its own lookups on an address of its own (127.0.0.1 for
// the run that made the network, one picked at random in 127.64.0.0/10 for
// the others, named in its resolv.conf).
#pragma once
#include <stdint.h>
#include <sys/types.h>

#include <string>
#include <vector>

namespace oms::landlock {

class TaskNetwork {
public:
    static constexpr uint32_t kOwnResolver = 0x7f000001;  // 127.0.0.1

    // Finds a live member for a run of `worktree` whose relayed ports are
    // `relay_ports`, under `state_dir`, and locks the key until enroll() or
    // the end. With no state folder, or no member alive, the run makes its
    // own network; a holder then keeps it `idle_seconds` (0: none).
    TaskNetwork(const std::string& state_dir, const std::string& worktree, const std::vector<uint16_t>& relay_ports,
                long idle_seconds);
    ~TaskNetwork();
    TaskNetwork(const TaskNetwork&) = delete;
    TaskNetwork& operator=(const TaskNetwork&) = delete;

    // A pidfd of the member whose network the run enters, or -1: a new one.
    int join_pidfd() const { return join_pidfd_; }
    // The key's lock while it is held, or -1: a child the run starts closes
    // its copy first (ChildSpec::task_lock_fd).
    int lock_descriptor() const { return lock_fd_; }
    // Where the run's resolver answers (host byte order).
    uint32_t resolver_address() const { return resolver_; }
    // Once the run's init has its network: records it as a member for the
    // runs after it, starts the holder when the run made the network, and
    // lets the next runs look. Once: a second call does nothing.
    void enroll(pid_t init_pid);

private:
    bool join_first_live_member();
    void start_holder(pid_t init_pid);
    void wait_for_holder();
    bool holders_below_limit() const;
    void release_lock();

    std::string folder_;       // STATE/landlock-net/KEY ("": not shared)
    std::string member_file_;  // this run's, once enrolled
    long idle_seconds_ = 0;
    int lock_fd_ = -1;
    int join_pidfd_ = -1;
    int holder_ready_ = -1;  // a pipe the holder writes once it is a member
    bool enrolled_ = false;
    uint32_t resolver_ = kOwnResolver;
};

// The run's resolver address when it joins a network: at random in
// 127.64.0.0/10, so no command of the task can hold it in advance.
uint32_t joined_resolver_address();

// `oms task end`: the holders of the worktree's networks leave (their links
// are removed; each sees it within a second). Runs still going keep theirs.
void end_task_networks(const std::string& state_dir, const std::string& worktree);

}  // namespace oms::landlock
