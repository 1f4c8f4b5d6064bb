// Stats many entries of one open folder in one go, on two threads when there
// are enough of them. A cached folder is checked with one fstatat, and on a
// machine where a system call costs microseconds (a virtual machine with page
// table isolation: about 4 us here) those stats are most of a large
// worktree's start-up; the second CPU halves them.
#pragma once

#include <sys/stat.h>

#include <condition_variable>
#include <cstddef>
#include <mutex>
#include <thread>
#include <vector>

namespace oms::sdk {

struct SiblingStat {
    int error = 0;  // errno of the fstatat, 0 when `st` holds its answer
    struct stat st {};
};

class SiblingStats {
public:
    SiblingStats() = default;
    SiblingStats(const SiblingStats&) = delete;
    SiblingStats& operator=(const SiblingStats&) = delete;
    ~SiblingStats();

    // out[i] = fstatat(folder, names[i], AT_SYMLINK_NOFOLLOW), for every i.
    // `folder` must stay open until it returns.
    void stat_all(int folder, const std::vector<const char*>& names, std::vector<SiblingStat>& out);

private:
    struct Share {
        int folder = -1;
        const char* const* names = nullptr;
        SiblingStat* out = nullptr;
        size_t count = 0;
    };

    std::mutex mutex_;
    std::condition_variable changed_;
    Share share_;           // the helper's part, while `pending_`
    bool pending_ = false;  // a share is waiting for the helper or being done by it
    bool stopping_ = false;
    bool helper_tried_ = false;
    std::thread helper_;

    bool has_helper();
    void help();
    static void stat_share(const Share& share);
};

}  // namespace oms::sdk
