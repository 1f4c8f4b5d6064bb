// USER and LOGNAME inside a container. The core sets them from the uid oms
// runs as (never the caller's values), but a container's command runs as
// the container's user, whose name comes from the image's /etc/passwd. The
// runner, which runs as that user, puts that name in place of the core's
// value, and removes both names when the image has no entry for its uid,
// as the core does for a uid without a passwd entry. Names the policy did
// not set stay unset.
#pragma once
#include <string>
#include <vector>

namespace oms::docker::user_names {

// The name of `uid` in the passwd file at `passwd_path`; empty when it has none.
std::string name_of(unsigned uid, const char* passwd_path = "/etc/passwd");

// Rewrites the USER= and LOGNAME= entries of `env` to `name`, or removes
// them when `name` is empty.
void rewrite(std::vector<std::string>& env, const std::string& name);

}  // namespace oms::docker::user_names
