// How a task's warm container is named and labelled. The name holds a hash of
// the worktree and a hash of everything the container was created with, so a
// changed configuration (or mount list) never reuses a stale container, and
// the labels let a later run find containers left behind by a crash.
#pragma once
#include "container_plan.hpp"

#include <string>
#include <vector>

namespace oms::docker {

inline constexpr const char* kManagedLabel = "oms.managed";      // "warm" or "one-shot"
inline constexpr const char* kWorktreeLabel = "oms.worktree";    // the task's worktree
inline constexpr const char* kConfigLabel = "oms.config-hash";   // config_hash()

// 16 hex digits of the FNV-1a 64-bit hash of `text`.
std::string fnv_hex(const std::string& text);

// Hash of the image, user and flags the container is created with, and of
// the runner binary's path.
std::string config_hash(const ContainerPlan& plan, const std::string& runner_path);

// The host folder holding the runner's socket of container `name`.
std::string runner_socket_dir(const std::string& state_dir, const std::string& name);

std::string warm_name(const std::string& worktree, const std::string& hash);
std::vector<std::string> warm_labels(const std::string& worktree, const std::string& hash);

}  // namespace oms::docker
