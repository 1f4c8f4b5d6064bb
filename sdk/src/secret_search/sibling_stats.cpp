#include "sibling_stats.hpp"

#include <errno.h>
#include <fcntl.h>

#include <system_error>

namespace oms::sdk {
namespace {

// Below this many, handing half to the helper costs more (two wake-ups)
// than it saves.
constexpr size_t kStatsWorthSharing = 32;

}  // namespace

SiblingStats::~SiblingStats() {
    if (!helper_.joinable()) return;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        stopping_ = true;
    }
    changed_.notify_all();
    helper_.join();
}

void SiblingStats::stat_share(const Share& share) {
    for (size_t i = 0; i < share.count; ++i) {
        SiblingStat& result = share.out[i];
        result.error = fstatat(share.folder, share.names[i], &result.st, AT_SYMLINK_NOFOLLOW) == 0 ? 0 : errno;
    }
}

// Started on the first batch worth sharing. No thread (a process limit, say):
// the caller does every stat itself.
bool SiblingStats::has_helper() {
    if (!helper_tried_) {
        helper_tried_ = true;
        try {
            helper_ = std::thread([this] { help(); });
        } catch (const std::system_error&) {
        }
    }
    return helper_.joinable();
}

void SiblingStats::help() {
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
        changed_.wait(lock, [this] { return pending_ || stopping_; });
        if (stopping_) return;
        const Share share = share_;
        lock.unlock();
        stat_share(share);
        lock.lock();
        pending_ = false;
        changed_.notify_all();
    }
}

void SiblingStats::stat_all(int folder, const std::vector<const char*>& names, std::vector<SiblingStat>& out) {
    out.assign(names.size(), SiblingStat{});
    const Share all{folder, names.data(), out.data(), names.size()};
    if (names.size() < kStatsWorthSharing || !has_helper()) {
        stat_share(all);
        return;
    }
    const size_t mine = names.size() / 2;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        share_ = Share{folder, all.names + mine, all.out + mine, all.count - mine};
        pending_ = true;
    }
    changed_.notify_all();
    stat_share(Share{folder, all.names, all.out, mine});
    std::unique_lock<std::mutex> lock(mutex_);
    changed_.wait(lock, [this] { return !pending_; });
}

}  // namespace oms::sdk
