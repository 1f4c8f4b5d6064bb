// The name of the user oms runs as, for the command's USER and LOGNAME. Like
// HOME, oms sets them itself: a caller's USER could say anything (USER=root
// from a hostile parent), while the password database says who the uid is.
#pragma once
#include <string>
#include <sys/types.h>

namespace oms::core {

// The password database's name for `uid`; empty when it has no entry (a
// container's arbitrary uid): the variables are then left unset, as `whoami`
// fails there too, rather than given a number that names nobody.
std::string account_name(uid_t uid);

// True for the variables whose value is the account name.
bool is_account_name_variable(const std::string& name);

}  // namespace oms::core
