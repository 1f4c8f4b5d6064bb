#include "oms/core/account_name.hpp"

#include <pwd.h>

namespace oms::core {

std::string account_name(uid_t uid) {
    const passwd* entry = getpwuid(uid);
    if (!entry || !entry->pw_name) return {};
    return entry->pw_name;
}

bool is_account_name_variable(const std::string& name) { return name == "USER" || name == "LOGNAME"; }

}  // namespace oms::core
