// What oms saw of a worktree's repository the first time it ran a command
// there. `oms verify` lists its inputs from the repository's index; a
// repository that did not exist then (or is another folder now) may have
// been made by a command, with an index of its choosing, so verify does not
// take its list from it. Kept in oms's state folder, which no command can
// write; written once per worktree and never updated.
#pragma once
#include <optional>
#include <string>

namespace oms::core {

// Records, unless a record exists already, the identity (device and inode,
// no link followed) of the `.git` of the repository holding `worktree`, or
// that there was none. Best effort: a state folder that cannot be written
// leaves no record, and then verify trusts what it finds, as before any run.
void remember_repository(const std::string& state_dir, const std::string& worktree);

// "DEV INO" of the `.git` entry of the repository holding `worktree` (no
// link followed), or "none": what remember_repository records.
std::string repository_identity(const std::string& worktree);

// Why the repository whose `.git` entry is `identity_now` (as
// repository_identity gives it, taken from the descriptor that is then
// read: TrackedFiles::git_identity) is not the one first seen at `worktree`
// (made since, or replaced), with the record's path; nullopt when it is the
// same or nothing was recorded.
std::optional<std::string> repository_changed_since_first_run(const std::string& state_dir, const std::string& worktree,
                                                              const std::string& identity_now);

}  // namespace oms::core
