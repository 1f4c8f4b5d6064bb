// oms/run_folder.hpp: where a run's private folders lie, for backends that
// must keep a command out of the other runs' (sdk.h, OMS_RUN_DIR_PREFIX).
//
// oms gives each run one folder <base>/OMS_RUN_DIR_PREFIX<6 characters>,
// holding the run's private HOME (home/) and TMPDIR (tmp/); every run of a
// user has its folder in the same <base>, /tmp/oms-runs-UID, whatever the
// run's environment says, and holds nothing else there (but the landlock
// backend's scan keeper socket and lock, no command's). Other runs' folders
// come and go while a command runs, so a backend that would show <base> to
// a command (the user made /tmp a write root) hides <base> whole and shows
// the run's own home/ and tmp/ only (a rule per run folder would miss the
// runs that start later), and hides the other users' bases beside it too.
//
// Header-only, standard library and POSIX only (the SDK builds without Boost, spdlog
// or toml++). run_folder_of is lexical; run_folder_bases lists a folder.
#pragma once
#include <oms/sdk.h>

#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

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

// Every folder beside run.base named like one (kRunFoldersPrefix, the
// other users' bases and run.base itself), as it is now: a folder, not a
// link. Hidden whole by a backend that would show them; naming one more is
// only stricter. Empty when the run folder is unknown.
inline constexpr char kRunFoldersPrefix[] = "oms-runs-";
inline std::vector<std::string> run_folder_bases(const RunFolder& run) {
    std::vector<std::string> bases;
    if (!run.known()) return bases;
    const std::string parent = run.base.substr(0, run.base.rfind('/'));
    DIR* folder = opendir(parent.empty() ? "/" : parent.c_str());
    while (dirent* entry = folder ? readdir(folder) : nullptr) {
        if (std::strncmp(entry->d_name, kRunFoldersPrefix, sizeof kRunFoldersPrefix - 1) != 0) continue;
        const std::string path = parent + "/" + entry->d_name;
        struct stat info;
        if (lstat(path.c_str(), &info) == 0 && S_ISDIR(info.st_mode)) bases.push_back(path);
    }
    if (folder) closedir(folder);
    std::sort(bases.begin(), bases.end());
    return bases;
}

}  // namespace oms::sdk
