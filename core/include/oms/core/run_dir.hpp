// The per-run private folder: /tmp/oms-runs-UID/oms-run-XXXXXX with home/ (the command's
// HOME) and tmp/ (its TMPDIR), all 0700, and the empty file refusals (0600,
// where the backend and oms's proxy append what they refused while the run
// lasts: oms/refusal_log.hpp), removed when the object dies,
// whatever happened to the command. While it exists, its oms holds an
// exclusive lock on <folder>/.owner, so an abandoned folder can be told apart.
#pragma once
#include <oms/sdk.h>

#include <string>

namespace oms::core {

constexpr const char* kRunDirPrefix = OMS_RUN_DIR_PREFIX;  // part of the plugin ABI (sdk.h)
constexpr const char* kRunDirOwnerFile = ".owner";
constexpr const char* kRunDirRefusalFile = "refusals";

// Every run folder of a user lies in one folder of its own, /tmp/oms-runs-UID
// whatever TMPDIR says, holding nothing else: a backend that would show it
// to a command hides it whole but for the run's own folder
// (oms/run_folder.hpp), which covers the runs that start later too.
constexpr const char* kRunDirBasePrefix = "oms-runs-";
constexpr unsigned kRunDirBaseMode = 0711;

// The parent's TMPDIR (else /tmp), canonical: where oms verify's results go.
std::string temp_folder_base();
// Where run folders are made: /tmp/oms-runs-UID (canonical /tmp).
std::string run_dir_base();
// That folder, made when missing (mode kRunDirBaseMode, set again when
// changed) and opened; throws UserError when it is a link or another user's.
int open_run_dir_base();

class RunDir {
public:
    RunDir();  // throws UserError when it cannot be created
    ~RunDir();
    RunDir(const RunDir&) = delete;
    RunDir& operator=(const RunDir&) = delete;
    const std::string& root() const { return root_; }
    const std::string& home() const { return home_; }
    const std::string& temp() const { return temp_; }
    const std::string& refusal_log() const { return refusals_; }
    // The run folder, open: make things in it relative to this (folder_writes.hpp).
    int root_fd() const { return root_fd_; }
    // Its .owner, open and locked while the run lasts (running_runs.hpp
    // writes the run's description in it).
    int owner_fd() const { return owner_lock_; }

private:
    void release();
    std::string root_, name_, home_, temp_, refusals_;
    // The folder is removed through these, never by path: commands can write
    // the temp folder and could swap the path for a link meanwhile.
    int base_fd_ = -1, root_fd_ = -1;
    int owner_lock_ = -1;
};

}  // namespace oms::core
