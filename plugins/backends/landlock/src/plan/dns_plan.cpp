#include "dns_responder.hpp"
#include "path_utils.hpp"

#include <oms/path.hpp>

#include <sys/stat.h>

#include <algorithm>

namespace oms::landlock {

void plan_name_resolution(Plan& plan) {
    plan.resolv_conf.clear();
    if (!plan.own_network) return;
    // A link (to systemd-resolved's stub, say) is covered at its target: a
    // mount cannot sit on a link.
    auto real = canonical("/etc/resolv.conf");
    struct stat st;
    if (!real || stat(real->c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return;
    const bool hidden = std::any_of(plan.hide_folders.begin(), plan.hide_folders.end(),
                                    [&](const std::string& folder) { return sdk::path::is_inside(*real, folder); }) ||
                        std::find(plan.hide_files.begin(), plan.hide_files.end(), *real) != plan.hide_files.end();
    if (!hidden) plan.resolv_conf = *real;
}

}  // namespace oms::landlock
