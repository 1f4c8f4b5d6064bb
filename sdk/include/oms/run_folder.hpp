// oms/run_folder.hpp: where a run's private folders lie, for backends that
// must keep a command out of the other runs' (sdk.h, OMS_RUN_DIR_PREFIX).
//
// oms gives each run one folder <base>/OMS_RUN_DIR_PREFIX<6 characters>,
// holding the run's private HOME (home/) and TMPDIR (tmp/); every run of a
// user has its folder in the same <base>, a folder of oms's own that holds
// nothing else. Other runs' folders come and go while a command runs, so a
// backend that would show <base> to a command (the system temp folders made
// writable, or TMPDIR below a root the command may read) hides <base> whole
// and shows the run's own home/ and tmp/ only: a rule per run folder would
// miss the runs that start later.
//
// Header-only, standard library only (the SDK builds without Boost, spdlog
// or toml++). Lexical: nothing is looked at on disk.
#pragma once
#include <oms/sdk.h>

#include <string>
#include <string_view>

namespace oms::sdk {

struct RunFolder {
    std::string own;   // this run's folder: <base>/OMS_RUN_DIR_PREFIX...
    std::string base;  // the folder every run of the user has its folder in
    bool known() const { return !own.empty(); }
};

// The run folder of a context whose private HOME and TMPDIR are home/ and
// tmp/ of one folder named OMS_RUN_DIR_PREFIX...; otherwise an empty one
// (a host that is not oms, a test harness): nothing is then hidden.
inline RunFolder run_folder_of(std::string_view private_home, std::string_view temp_dir) {
    const auto parent = [](std::string_view path) {
        const size_t slash = path.rfind('/');
        return slash == std::string_view::npos || slash == 0 ? std::string_view() : path.substr(0, slash);
    };
    const std::string_view own = parent(private_home);
    const std::string_view base = parent(own);
    if (own.empty() || base.empty() || own[0] != '/' || parent(temp_dir) != own) return {};
    const std::string_view name = own.substr(base.size() + 1);
    if (name.rfind(OMS_RUN_DIR_PREFIX, 0) != 0 || private_home.substr(own.size()) != "/home" ||
        temp_dir.substr(own.size()) != "/tmp")
        return {};
    return RunFolder{std::string(own), std::string(base)};
}

}  // namespace oms::sdk
