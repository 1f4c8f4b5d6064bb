// The members of a task's network (task_network.hpp): each is a link
// STATE/landlock-net/KEY/PID whose text is "START NETWORK", the process's
// start time (clock ticks after boot, field 22 of /proc/PID/stat) and its
// network namespace's inode. With the pid, they name one process in one
// network for good: a pid recycled since, or a process that left, no longer
// matches. Shared by the plugin and the holder (net_holder_main.cpp); libc
// and the C++ runtime only.
#pragma once
#include <sys/types.h>

#include <string>
#include <vector>

namespace oms::landlock::task_members {

// 0 when unknown.
unsigned long long start_time_of(pid_t pid);
// Of `process` ("self" or a pid); 0 when unknown.
unsigned long long network_inode_of(const std::string& process);

// Whether `name` is a member's (a pid).
bool is_member_name(const char* name);

// A pidfd (close-on-exec) of member `name` of `folder` when it is still the
// process its link names, in that network, that network is not
// `refused_network` (oms's own: never join the host's; 0: none), and it
// runs one of `programs` (paths compared by device and inode; none: any);
// -1 otherwise, and then a member link that names a gone process is removed.
int open_live_member(const std::string& folder, const char* name, unsigned long long refused_network,
                     const std::vector<std::string>& programs = {});

// Whether `process` ("self" or a pid) runs one of `programs` (paths
// compared by device and inode; none: any).
bool runs_one_of(const std::string& process, const std::vector<std::string>& programs);

// Makes `pid` (now in the network it will be joined to) a member of
// `folder`; its link's path, or "" when it could not be made.
std::string enroll(const std::string& folder, pid_t pid);

// The key's lock file, which runs hold from their look until they are
// members, and the holder while it decides to leave.
std::string lock_file(const std::string& folder);
// The file a holder keeps locked for its life: one holder per network key.
std::string holder_lock_file(const std::string& folder);

// An open file description's write lock on `fd` (opened for writing:
// commands cannot lock it, a read-only descriptor takes no write lock),
// tried every few milliseconds for at most `milliseconds` (0: once).
bool lock_for_writing(int fd, int milliseconds);

}  // namespace oms::landlock::task_members
